import {operationCommand} from '../../cli/operation-command.js'

export default class TransactionsVerify extends operationCommand('transactions:verify') {}
