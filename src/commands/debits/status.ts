import {operationCommand} from '../../cli/operation-command.js'

export default class DebitsStatus extends operationCommand('debits:status') {}
