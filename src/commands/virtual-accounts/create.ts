import {operationCommand} from '../../cli/operation-command.js'

export default class VirtualAccountsCreate extends operationCommand('virtual-accounts:create') {}
