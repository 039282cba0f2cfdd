import {operationCommand} from '../../cli/operation-command.js'

export default class PayoutsCreate extends operationCommand('payouts:create') {}
