/**
 * The operation specs (src/api/operations.ts) against the endpoint table and its schemas, and every command's
 * description, flags and examples against the table and the commands that exist, so that none of them can drift:
 * - the derived file (method, path, rule texts from zod) is current;
 * - every resource command is the declaration of its spec; every spec field is a field of its endpoint's body,
 *   query or path, and every required one has a field; --wait polls a GET whose inputs the spec fills;
 * - no description writes a method and path by hand that the table does not have, and no example uses a command
 *   or flag that does not exist.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {describe, expect, it} from 'vitest'
import {z} from 'zod'
import {endpointList, endpoints, pathParams, type Endpoint} from '../../src/api/endpoints.js'
import {descriptionOf, fieldHelp} from '../../src/api/operation-help.js'
import {flagName} from '../../src/api/operation-names.js'
import {generatedModule} from '../../src/api/operation-rules.js'
import {operationList, type OperationSpec} from '../../src/api/operations.js'
import {ROOT} from '../helpers/cli.js'

interface ManifestCommand {
  id: string
  aliases?: string[]
  description?: string
  examples?: ({command: string} | string)[]
  flags: Record<string, {name: string; char?: string; description?: string}>
  args?: Record<string, {description?: string}>
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, ManifestCommand>}
const commands = Object.values(manifest.commands)

type Shape = Record<string, z.ZodType>
// the schemas are z.lazy (built on first use): read through zod's own API, not through operation-rules' reading
const shapeOf = (schema: z.ZodType | undefined): Shape => {
  let s: unknown = schema
  while (s instanceof z.ZodLazy) s = s.unwrap()
  return s instanceof z.ZodObject ? (s.shape as Shape) : {}
}
const isOptional = (schema: z.ZodType) => schema.safeParse(undefined).success

it('src/api/operations.generated.ts is what the table and the schemas give (else: run this file with -u)', async () => {
  await expect(generatedModule(operationList)).toMatchFileSnapshot('../../src/api/operations.generated.ts')
})

describe.each(operationList.map((op) => [op.command, op] as const))('%s', (_id, op: OperationSpec) => {
  it('is the command file, declared over its spec', async () => {
    const file = pathToFileURL(join(ROOT, 'src/commands', `${op.command.replace(/:/g, '/')}.ts`)).href
    const mod = (await import(/* @vite-ignore */ file)) as {default: {operation?: OperationSpec}}
    expect(mod.default.operation).toBe(op)
  })

  it('fills fields of its endpoints, and every required one', () => {
    for (const id of [op.endpoint, ...(op.alternatives ?? []).map((a) => a.endpoint)]) {
      const e: Endpoint = endpoints[id]
      const fields = op.fields.filter((f) => f.for === undefined || f.for === id)
      const body = shapeOf(e.body)
      const query = shapeOf(e.query)
      for (const f of fields) {
        const place = f.in ?? 'body'
        const known = place === 'path' ? pathParams(e.path) : Object.keys(place === 'body' ? body : query)
        expect(known, `${op.command}: ${place} field ${f.key} of ${id}`).toContain(f.key)
      }
      const has = (place: string, key: string) => fields.some((f) => (f.in ?? 'body') === place && f.key === key)
      for (const p of pathParams(e.path)) expect(has('path', p), `${op.command}: path parameter ${p} of ${id}`).toBe(true)
      for (const [k, s] of Object.entries(body)) if (!isOptional(s)) expect(has('body', k), `${op.command}: required body field ${k} of ${id}`).toBe(true)
      for (const [k, s] of Object.entries(query)) if (!isOptional(s)) expect(has('query', k), `${op.command}: required query field ${k} of ${id}`).toBe(true)
    }
  })

  it('waits on a GET whose inputs it fills', () => {
    if (!op.wait) return
    const get: Endpoint = endpoints[op.wait.get === 'self' ? op.endpoint : op.wait.get]
    expect(get.method).toBe('GET')
    if (op.wait.get === 'self') return
    expect(Object.keys(op.wait.path ?? {}).sort()).toEqual(pathParams(get.path).sort())
    const required = Object.entries(shapeOf(get.query)).filter(([, s]) => !isOptional(s)).map(([k]) => k)
    expect(Object.keys(op.wait.query ?? {}).sort()).toEqual(required.sort())
    expect([...op.wait.succeeded, ...op.wait.failed].length).toBeGreaterThan(0)
  })

  it('leaves method and path to the table, and the built help is the spec', () => {
    expect(op.description, 'the endpoint line comes from the table').not.toMatch(/\b(GET|POST) \/v1\//)
    for (const f of op.fields) expect(f.help, `${f.key}: the rule text comes from the schema`).not.toMatch(/\bat most \d+ characters|\d+ to \d+ digits/)
    const built = manifest.commands[op.command]
    expect(built, `${op.command} in oclif.manifest.json (npm run build)`).toBeDefined()
    expect(built.description).toBe(descriptionOf(op))
    for (const f of op.fields) {
      const name = flagName(f)
      const described = name === undefined ? built.args?.[f.arg!]?.description : built.flags[name]?.description
      expect(described, `${op.command} ${name ?? f.arg}`).toBe(fieldHelp(op, f))
    }
  })
})

/** Shell-ish words of a command line, up to the first unquoted |, &&, ; or ). */
function words(line: string): string[] {
  const out: string[] = []
  let cur = ''
  let quote = ''
  let i = 0
  for (; i < line.length; i++) {
    const c = line[i]
    if (quote) {
      if (c === quote) quote = ''
      else cur += c
      continue
    }
    if (c === '"' || c === "'") quote = c
    else if (c === '|' || c === ';' || c === ')' || line.startsWith('&&', i)) break
    else if (c === ' ') {
      if (cur) out.push(cur)
      cur = ''
    } else cur += c
  }
  if (cur) out.push(cur)
  return out
}

const BIN = '<%= config.bin %>'
const byId = new Map<string, ManifestCommand>()
for (const c of commands) for (const id of [c.id, ...(c.aliases ?? [])]) byId.set(id.replace(/:/g, ' '), c)

describe('every command (resource or not)', () => {
  it.each(commands.map((c) => [c.id, c] as const))('%s: a method and path in the description is in the table', (_id, c) => {
    for (const m of (c.description ?? '').matchAll(/\b(GET|POST) (\/v1\/[A-Za-z0-9_{}/-]*[A-Za-z0-9_}])/g)) {
      expect(endpointList.some((e) => e.method === m[1] && e.path === m[2]), `${c.id}: ${m[1]} ${m[2]}`).toBe(true)
    }
  })

  it.each(commands.map((c) => [c.id, c] as const))('%s: examples use commands and flags that exist', (_id, c) => {
    for (const example of c.examples ?? []) {
      const text = (typeof example === 'string' ? example : example.command).replaceAll('<%= command.id %>', c.id.replace(/:/g, ' '))
      for (const part of text.split(BIN).slice(1)) {
        const w = words(part)
        let n = w.length
        while (n > 0 && !byId.has(w.slice(0, n).join(' '))) n--
        expect(n, `${c.id} example: ${text}`).toBeGreaterThan(0)
        const target = byId.get(w.slice(0, n).join(' '))!
        const chars = new Set(Object.values(target.flags).map((f) => f.char).filter(Boolean))
        for (const word of w.slice(n)) {
          const name = word.slice(2).split('=')[0]
          // --no-x negates a flag x declared with allowNo
          if (/^--[a-z]/.test(word)) expect(Object.keys(target.flags), `${c.id} example: ${text}`).toContain(name in target.flags ? name : name.replace(/^no-/, ''))
          else if (/^-[A-Za-z]$/.test(word)) expect(chars, `${c.id} example: ${text}`).toContain(word.slice(1))
        }
      }
    }
  })
})
