import {operationCommand} from '../../cli/operation-command.js'

export default class CollectionsCreate extends operationCommand('collections:create') {}
