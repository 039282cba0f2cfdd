import {profileNameAction} from '../../cli/profile-action.js'

export default profileNameAction({
  summary: 'Delete a profile, its secrets in the OS keyring and its cached token',
  aliases: ['profiles:rm'],
  examples: [
    {description: 'Remove a profile', command: '<%= config.bin %> profiles remove staging'},
    {description: 'Remove and confirm in a script', command: '<%= config.bin %> profiles remove old --json'},
  ],
  run: 'runProfilesRemove',
})
