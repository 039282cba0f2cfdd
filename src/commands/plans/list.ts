import {operationCommand} from '../../cli/operation-command.js'

export default class PlansList extends operationCommand('plans:list') {}
