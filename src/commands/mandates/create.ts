import {operationCommand} from '../../cli/operation-command.js'

export default class MandatesCreate extends operationCommand('mandates:create') {}
