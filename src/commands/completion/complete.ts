import {BaseCommand} from '../../cli/base-command.js'

export default class CompletionComplete extends BaseCommand {
  static override hidden = true
  static override strict = false
  static override summary = 'What the completion scripts call: prints the candidates for the words after `pay --`'
  static override examples = [{description: 'Candidates after `pay collections c`', command: '<%= config.bin %> completion complete -- collections c'}]

  async run(): Promise<void> {
    const {argv} = await this.parse(CompletionComplete)
    const words = argv as string[]
    const [{complete, profileOf, shellSafe}, {surfaceOf}] = await Promise.all([import('../../cli/completion.js'), import('../../cli/surface.js')])
    const result = complete(surfaceOf(this.config.commands), words)
    const out = await this.output()
    const candidates = shellSafe('words' in result ? result.words : (await this.values(result.source, profileOf(words))).filter((v) => v.startsWith(result.prefix)))
    if (candidates.length > 0) out.chunk(`${candidates.join('\n')}\n`)
  }

  private async values(source: 'providers' | 'banks' | 'plans' | 'profiles', profile: string | undefined): Promise<string[]> {
    const rt = await this.runtime()
    if (source === 'profiles') {
      const stored = rt.readProfiles()
      return stored ? rt.listProfiles(stored).map((p) => p.name) : []
    }
    const [{cachedValues}, {fetchChoices}] = await Promise.all([import('../../cli/completion-cache.js'), import('../../operation/prompts.js')])
    return cachedValues(rt.configDir(), source, async () => {
      const quiet = rt.createOutput({format: 'table', quiet: true}, true)
      const ctx = await rt.createApiContext({profile, retries: 0, timeout: 3}, this.userAgent, quiet)
      try {
        return (await fetchChoices(ctx.client, quiet, source))?.map((c) => c.value)
      } finally {
        await ctx.client.close()
      }
    })
  }
}
