import {operationCommand} from '../../cli/operation-command.js'

export default class CollectionsGet extends operationCommand('collections:get') {}
