import {operationCommand} from '../../cli/operation-command.js'

export default class SubscriptionsGet extends operationCommand('subscriptions:get') {}
