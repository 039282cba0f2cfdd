import {operationCommand} from '../../cli/operation-command.js'

export default class SubscriptionsCreate extends operationCommand('subscriptions:create') {}
