/**
 * No export without an importer outside tests: every name a module of src/ exports is imported by another module
 * of src/, scripts/ or bin/ (which load dist/). A name only its own module uses is not exported (a test reaches it
 * through the public function src calls, or through a parameter or return type of one), and code only tests use is
 * not in src/. FOR_TESTS lists the few exceptions, each with its reason. The commands' and hooks' default exports are
 * what oclif loads, so they are left out. Read as text, like test/project/import-graph.test.ts: an import names the
 * module by a relative path, and the importer mentions the name.
 */
import {existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, relative} from 'node:path'
import {expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

function files(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === 'fixtures' ? [] : files(path)
    return /\.(ts|mts|mjs|cjs|js)$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

/** The names a module exports by declaration or by an `export {…}` list of its own. */
export function exportedNames(text: string): string[] {
  const names = new Set<string>()
  for (const m of text.matchAll(/^export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:const|let|var|function\*?|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm)) names.add(m[1])
  for (const m of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}(?!\s*from)/gm)) {
    for (const part of m[1].split(',')) {
      const name = part.trim().split(/\s+as\s+/).pop()?.replace(/^type\s+/, '')
      if (name) names.add(name)
    }
  }
  return [...names]
}

/** Exports only a test may use, each with the reason (a few; not a place to park an export a test could avoid). */
const FOR_TESTS: Record<string, string> = {
  'src/mcp/server.ts connectMcp': "test/mcp/server.test.ts serves over the SDK's in-memory transport with it (serveMcp is it over stdio)",
  'src/api/operation-rules.ts generatedModule': 'test/api/operations.test.ts writes src/api/operations.generated.ts with it (-u)',
  'src/api/sure-match.ts plansModule': 'test/api/sure-match.test.ts writes src/api/sure-plans.generated.ts with it (-u)',
  'src/api/sure-match.ts exactPlansModule': 'test/config/profile-schema.test.ts writes src/config/profile-plans.generated.ts with it (-u)',
  'src/api/schemas.ts CROSS_FIELD_RULES': 'test/api/sure-match.test.ts names the cross-field rules with it when it writes src/api/sure-plans.generated.ts (-u)',
  'src/bulk/input.ts CSV_OPTIONS':
    "test/bulk/input.test.ts holds the lines the streamed reader gives each row to those of csv-parse's own `info` option, which must parse with the very options pay reads with",
  'src/bulk/young-generation.ts YOUNG_GENERATION': 'test/bulk/young-generation.test.ts sets the very flag in a fresh node, at the very cap, to fail when V8 stops honouring it',
}

/** Exports of src/ that break the rule: `path name: why`. */
export function unimportedExports(root: string): string[] {
  const src = files(join(root, 'src'))
  const all = [...src, ...files(join(root, 'test')), ...files(join(root, 'scripts')), ...files(join(root, 'bin'))]
  const text = new Map(all.map((f) => [f, readFileSync(f, 'utf8')]))
  const importers = new Map<string, string[]>()
  for (const [file, body] of text) {
    for (const m of body.matchAll(/(?:from\s+|import\(\s*|require\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const module = relative(root, join(dirname(file), m[1])).replace(/\.(c?js|ts)$/, '').replace(/^dist\//, 'src/') + '.ts'
      importers.set(module, [...(importers.get(module) ?? []), file])
    }
  }
  const found: string[] = []
  for (const file of src) {
    const module = relative(root, file)
    if (/^src\/(commands|hooks)\//.test(module)) continue
    const body = text.get(file)!
    for (const name of exportedNames(body)) {
      const word = new RegExp(`\\b${name.replaceAll('$', '\\$')}\\b`, 'g')
      const by = (importers.get(module) ?? []).filter((f) => f !== file && text.get(f)!.search(word) >= 0)
      if (by.some((f) => !relative(root, f).startsWith('test/'))) continue
      if (FOR_TESTS[`${module} ${name}`]) continue
      found.push(`${module} ${name}: ${by.length > 0 ? 'only tests use it' : 'nothing uses it'}`)
    }
  }
  return found.sort()
}

it('reads the names a module exports', () => {
  expect(exportedNames('export const a = 1\nexport async function b() {}\nexport type C = 1\nconst d = 2\nexport {d}\nexport {e} from "./e.js"')).toEqual(['a', 'b', 'C', 'd'])
})

it('finds an export only a test imports, even one its own module uses, and one nobody imports (the check itself works)', () => {
  const root = mkdtempSync(join(tmpdir(), 'pay-exports-'))
  try {
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), {recursive: true})
      writeFileSync(join(root, path), text)
    }
    write('src/a.ts', 'export const used = 1\nexport const piece = 2\nexport const forScripts = 3\nexport const dead = 4\nexport function whole() {\n  return piece\n}\n')
    write('src/b.ts', "import {used, whole} from './a.js'\nexport const both = used + whole()\n")
    write('scripts/s.mjs', "import {forScripts} from '../dist/a.js'\nconsole.log(forScripts)\n")
    write('test/a.test.ts', "import {piece} from '../src/a.js'\nimport {both} from '../src/b.js'\nconsole.log(piece, both)\n")
    expect(unimportedExports(root)).toEqual(['src/a.ts dead: nothing uses it', 'src/a.ts piece: only tests use it', 'src/b.ts both: only tests use it'])
  } finally {
    rmSync(root, {recursive: true, force: true})
  }
})

it('every export of src/ has an importer outside tests (or a reason in FOR_TESTS)', () => {
  expect(unimportedExports(ROOT)).toEqual([])
})
