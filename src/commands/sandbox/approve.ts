import {sandboxIdAction} from '../../cli/sandbox-action.js'

export default sandboxIdAction({
  description: 'Approve a mandate awaiting the customer in the sandbox (as if on their phone)',
  example: {
    description: 'Find the id of a mandate waiting for approval (a wallet number ending in 8), then approve it',
    command: '<%= config.bin %> mandates get --reference m-1 --jq .mandate_id | xargs <%= config.bin %> <%= command.id %>',
  },
  arg: ['mandate_id', 'Mandate id (MD_…)'],
  op: 'mandates.approve',
})
