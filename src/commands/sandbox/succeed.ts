import {forceTransaction} from '../../cli/sandbox-action.js'

export default forceTransaction('succeed', {description: 'Complete a collection waiting on a number ending in 8', command: '<%= config.bin %> <%= command.id %> CL_8W7MS7ZAC2H8YDXQ62V7'})
