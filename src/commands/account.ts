import {operationCommand} from '../cli/operation-command.js'

export default class Account extends operationCommand('account') {}
