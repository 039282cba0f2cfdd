/**
 * `--state FILE` on load: a file of the wrong shape, a truncated one or one with a section missing is refused
 * (exit 2) naming the file and the first bad path, and left exactly as it was; a good one is loaded and saved.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {InputError} from '../../src/base/errors.js'
import {startSandbox} from '../../src/sandbox/index.js'
import {tempConfigDir} from '../helpers/cli.js'

async function goodState(): Promise<string> {
  const file = join(tempConfigDir(), 'state.json')
  const sb = await startSandbox({statePath: file, quiet: true})
  await sb.close()
  return readFileSync(file, 'utf8')
}

describe('sandbox --state on load', () => {
  it('valid JSON of the wrong shape, a missing section, a cut file: refused naming the file and the first bad path; never rewritten', async () => {
    const good = JSON.parse(await goodState())
    const dir = tempConfigDir()
    const firstClient = Object.keys(good.clients)[0]
    const cases: [string, string, RegExp][] = [
      ['shape.json', JSON.stringify({...good, clients: {[firstClient]: {...good.clients[firstClient], merchant_id: 'one'}}}), new RegExp(`at clients\\.${firstClient}\\.merchant_id: `)],
      ['missing.json', JSON.stringify({...good, payouts: undefined}), /at payouts: /],
      ['array.json', JSON.stringify({...good, merchants: []}), /at merchants: /],
      ['cut.json', JSON.stringify(good).slice(0, 200), /is not a sandbox state file: /],
    ]
    for (const [name, text, where] of cases) {
      const file = join(dir, name)
      writeFileSync(file, text)
      const err = await startSandbox({statePath: file, quiet: true}).then(
        async (sb) => {
          await sb.close()
          return undefined
        },
        (e: unknown) => e,
      )
      expect(err, name).toBeInstanceOf(InputError)
      expect((err as InputError).message).toContain(`--state ${file} `)
      expect((err as InputError).message).toMatch(where)
      await new Promise((r) => setTimeout(r, 150)) // longer than a save's delay
      expect(readFileSync(file, 'utf8'), name).toBe(text)
    }
  })
})
