import {forceTransaction} from '../../cli/sandbox-action.js'

export default forceTransaction('fail', {description: 'Fail a payout to test your failure handling', command: '<%= config.bin %> <%= command.id %> PO_LSDIRSVWOJXBMRAZLJWR'})
