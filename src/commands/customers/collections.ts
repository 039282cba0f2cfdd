import {operationCommand} from '../../cli/operation-command.js'

export default class CustomersCollections extends operationCommand('customers:collections') {}
