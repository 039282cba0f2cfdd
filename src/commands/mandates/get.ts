import {operationCommand} from '../../cli/operation-command.js'

export default class MandatesGet extends operationCommand('mandates:get') {}
