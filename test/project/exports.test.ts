/**
 * No export without a user: every name a module of src/ exports is imported by another module (of src/, scripts/
 * or bin/, which load dist/), or is a piece its own module uses that a test imports to check on its own; a name
 * only its own module uses is not exported, and code only tests use is not in src/. The commands' and hooks' default exports are what oclif
 * loads, so they are left out. Read as text, like test/project/import-graph.test.ts: an import names the module by a relative
 * path, and the importer mentions the name.
 */
import {existsSync, readFileSync, readdirSync, statSync} from 'node:fs'
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

/** Exports only a test may use, each with the reason. */
const FOR_TESTS: Record<string, string> = {
  'src/api/operation-rules.ts generatedModule': 'test/api/operations.test.ts writes src/api/operations.generated.ts with it (-u)',
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
      const ownUse = (body.match(word) ?? []).length > 1
      // a piece of the module that a test imports to check it on its own (the module uses it too); a name only its
      // own module uses is not exported
      if ((ownUse && by.length > 0) || FOR_TESTS[`${module} ${name}`]) continue
      found.push(`${module} ${name}: ${by.length > 0 ? 'only tests use it' : 'nothing uses it'}`)
    }
  }
  return found.sort()
}

it('finds an export nobody imports (the check itself works)', () => {
  expect(exportedNames('export const a = 1\nexport async function b() {}\nexport type C = 1\nconst d = 2\nexport {d}\nexport {e} from "./e.js"')).toEqual(['a', 'b', 'C', 'd'])
})

it('every export of src/ is used outside tests: imported by another module, or used by its own', () => {
  expect(unimportedExports(ROOT)).toEqual([])
})
