import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {OCLIF_SORT, PLAIN_COMPARE, sortWithoutIcu} from '../../scripts/oclif-patches.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

describe("the build's patch of oclif (sortWithoutIcu)", () => {
  it('finds its target once in the installed @oclif/core, and the build applied it', () => {
    // a file @oclif/core does not export: the private shape the patch relies on
    const oclifDir = dirname(createRequire(join(ROOT, 'package.json')).resolve('@oclif/core/package.json'))
    const plugin = readFileSync(join(oclifDir, 'lib', 'config', 'plugin.js'), 'utf8')
    const patched = sortWithoutIcu(plugin) as string
    expect(patched).not.toContain(OCLIF_SORT)
    expect(patched).toContain(PLAIN_COMPARE)
    expect(readFileSync(join(ROOT, 'dist', 'vendor', 'oclif.cjs'), 'utf8')).toContain(PLAIN_COMPARE)
  })

  it('fails, naming itself, when oclif no longer sorts that way', () => {
    expect(() => sortWithoutIcu('.sort((a, b) => a.name.localeCompare(b.name))')).toThrow(/sortWithoutIcu: oclif's command sort .* not found once/)
  })

  it('orders ids of a-z, - and : as localeCompare does in English', () => {
    // the comparison as the patched bundle runs it
    const compare = new Function(`return ${PLAIN_COMPARE}`)() as (a: {id: string}, b: {id: string}) => number
    const id = fc.stringMatching(/^[a-z:-]{0,12}$/)
    fc.assert(
      fc.property(id, id, (a, b) => {
        expect(Math.sign(compare({id: a}, {id: b}))).toBe(Math.sign(a.localeCompare(b, 'en')))
      }),
      {numRuns: 2000},
    )
  })
})
