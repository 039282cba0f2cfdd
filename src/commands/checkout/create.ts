import {operationCommand} from '../../cli/operation-command.js'

export default class CheckoutCreate extends operationCommand('checkout:create') {}
