import {operationCommand} from '../../cli/operation-command.js'

export default class MetadataProviders extends operationCommand('metadata:providers') {}
