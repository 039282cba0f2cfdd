import {operationCommand} from '../cli/operation-command.js'

export default class Balance extends operationCommand('balance') {}
