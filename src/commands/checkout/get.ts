import {operationCommand} from '../../cli/operation-command.js'

export default class CheckoutGet extends operationCommand('checkout:get') {}
