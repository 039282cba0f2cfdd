import {operationCommand} from '../../cli/operation-command.js'

export default class VerificationsBankAccount extends operationCommand('verifications:bank-account') {}
