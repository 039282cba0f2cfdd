/**
 * docs/flows.md says what the code does: every key of the flow format, every exit class and every sandbox action
 * is documented; its YAML blocks with steps are valid flows; its whole example is the shipped
 * flows/sandbox-approval.yaml (which the sandbox-steps test runs).
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import {loadFlows} from '../../src/flows/load.js'
import {SANDBOX_ACTION_NAMES} from '../../src/flows/sandbox-steps.js'
import {EXIT_CLASSES, flowSchema} from '../../src/flows/schema.js'
import {ROOT, tempConfigDir} from '../helpers/cli.js'

const doc = readFileSync(join(ROOT, 'docs', 'flows.md'), 'utf8')
const yamlBlocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1])

// a step and an expectation as the flow file's schema holds them
const stepSchema = flowSchema.shape.steps.element
const expectSchema = stepSchema.shape.expect.unwrap()

describe('docs/flows.md', () => {
  it('names every key of a flow, a step and an expectation, every exit class and every sandbox action', () => {
    for (const key of [...Object.keys(flowSchema.shape), ...Object.keys(stepSchema.shape), ...Object.keys(expectSchema.shape)]) expect(doc, key).toMatch(new RegExp(`(\`${key}[:\`]|\\b${key}: )`))
    for (const name of Object.keys(EXIT_CLASSES)) expect(doc, name).toMatch(new RegExp(`\\b${name}\\b`))
    for (const name of SANDBOX_ACTION_NAMES) expect(doc).toContain(`| \`${name}\` |`)
    for (const ref of ['${steps.ID.a.b}', '${env.NAME}', '${env.NAME:-default}', '${run.id}']) expect(doc).toContain(ref)
  })

  it('its flows are valid, and its whole example is flows/sandbox-approval.yaml', () => {
    const flows = yamlBlocks.filter((b) => /^name:|^steps:/m.test(b) && !b.includes('{…}'))
    expect(flows.length).toBeGreaterThan(0)
    for (const [i, text] of flows.entries()) {
      const file = join(tempConfigDir(), `doc-${i}.yaml`)
      writeFileSync(file, text)
      expect(() => loadFlows([file], {}), text).not.toThrow()
    }
    const shipped = parse(readFileSync(join(ROOT, 'flows', 'sandbox-approval.yaml'), 'utf8')) as {name: string; steps: Record<string, unknown>[]}
    const documented = parse(flows.at(-1)!) as typeof shipped
    expect(documented).toEqual({name: shipped.name, steps: shipped.steps.map(({name: _, ...step}) => step)})
  })
})
