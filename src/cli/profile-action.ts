/** Profile commands that take one profile NAME and run one function of src/profiles/manage.ts: the class is built here, once. */
import {Args} from '@oclif/core'
import {BaseCommand} from './base-command.js'

interface NameAction {
  summary: string
  aliases?: string[]
  examples: {description: string; command: string}[]
  /** the run function in src/profiles/manage.ts */
  run: 'runProfilesUse' | 'runProfilesRemove'
}

export function profileNameAction(spec: NameAction) {
  const Action = class extends BaseCommand {
    static override summary = spec.summary
    static override aliases = spec.aliases ?? []
    static override examples = spec.examples
    static override args = {name: Args.string({description: 'Profile name', required: true})}

    async run(): Promise<void> {
      const {args} = await this.parse(Action)
      const run = (await import('../profiles/manage.js'))[spec.run]
      await run(args.name, await this.output())
    }
  }
  return Action
}
