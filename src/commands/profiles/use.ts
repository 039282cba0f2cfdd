import {profileNameAction} from '../../cli/profile-action.js'

export default profileNameAction({
  summary: 'Make a profile the active one',
  examples: [
    {description: 'Switch to the sandbox', command: '<%= config.bin %> profiles use sandbox'},
    {description: 'One command on another profile instead', command: '<%= config.bin %> balance --profile live'},
  ],
  run: 'runProfilesUse',
})
