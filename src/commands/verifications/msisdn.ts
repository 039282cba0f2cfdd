import {operationCommand} from '../../cli/operation-command.js'

export default class VerificationsMsisdn extends operationCommand('verifications:msisdn') {}
