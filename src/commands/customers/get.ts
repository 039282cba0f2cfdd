import {operationCommand} from '../../cli/operation-command.js'

export default class CustomersGet extends operationCommand('customers:get') {}
