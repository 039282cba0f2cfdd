import {operationCommand} from '../../cli/operation-command.js'

export default class PayoutsGet extends operationCommand('payouts:get') {}
