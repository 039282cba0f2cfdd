/**
 * `pay completion complete -- WORDS`: what the shells' scripts call. Prints the candidates for the last word, one a
 * line: fixed words from the command surface, or a list's values (providers, banks, plans from the local cache,
 * at most one request when it is stale; profiles from the profiles file), made safe for the shell.
 */
import {configDir} from '../config/paths.js'
import type {Output} from '../output/output.js'
import {complete, profileOf, shellSafe} from './completion.js'
import {surfaceOf, type ValueSource} from './surface.js'

interface CompleteRun {
  /** What oclif loaded (this.config.commands). */
  commands: Parameters<typeof surfaceOf>[0]
  userAgent: string
  /** default: the process's */
  env?: NodeJS.ProcessEnv
}

export async function runCompletionComplete(words: string[], out: Output, run: CompleteRun): Promise<string[]> {
  const result = complete(surfaceOf(run.commands), words)
  const values = 'words' in result ? result.words : (await valuesOf(result.source, profileOf(words), run)).filter((v) => v.startsWith(result.prefix))
  const candidates = shellSafe(values)
  if (candidates.length > 0) out.chunk(`${candidates.join('\n')}\n`)
  return candidates
}

async function valuesOf(source: ValueSource, profile: string | undefined, run: CompleteRun): Promise<string[]> {
  const env = run.env ?? process.env
  if (source === 'profiles') {
    // the profile store (and its schema's zod) only for a profile name: a word completion loads none of it
    const {listProfiles, readProfiles} = await import('../config/profiles.js')
    const stored = readProfiles(configDir(env))
    return stored ? listProfiles(stored).map((p) => p.name) : []
  }
  const [{cachedValues}, {fetchChoices}, {createApiContext, createOutput}] = await Promise.all([import('./completion-cache.js'), import('../operation/prompts.js'), import('../runtime.js')])
  return cachedValues(configDir(env), source, async () => {
    const quiet = createOutput({format: 'table', quiet: true}, true)
    const ctx = await createApiContext({profile, retries: 0, timeout: 3}, run.userAgent, quiet, env)
    try {
      return (await fetchChoices(ctx.client, quiet, source))?.map((c) => c.value)
    } finally {
      await ctx.client.close()
    }
  })
}
