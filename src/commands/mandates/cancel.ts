import {operationCommand} from '../../cli/operation-command.js'

export default class MandatesCancel extends operationCommand('mandates:cancel') {}
