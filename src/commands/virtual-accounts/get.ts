import {operationCommand} from '../../cli/operation-command.js'

export default class VirtualAccountsGet extends operationCommand('virtual-accounts:get') {}
