import {operationCommand} from '../../cli/operation-command.js'

export default class MetadataBanks extends operationCommand('metadata:banks') {}
