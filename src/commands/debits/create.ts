import {operationCommand} from '../../cli/operation-command.js'

export default class DebitsCreate extends operationCommand('debits:create') {}
