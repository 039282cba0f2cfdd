/**
 * No private internals of packages and no run-time V8 flags in src/, except the tricks docs/performance.md keeps
 * (its "Kept tricks" table: each with its module, its measured gain, and its package pinned exactly). A module
 * that reaches into a package's files (a path the package's "exports" does not offer, or any path of a package
 * without "exports") or sets a V8 flag, and is not in that table, fails here.
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT, codeLines, srcModules} from '../helpers/source-scan.js'

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {dependencies: Record<string, string>; devDependencies: Record<string, string>}

/** The rows of docs/performance.md's "Kept tricks" table: the module (`src/...`) and the package it pins, if any. */
function keptTricks(): {module: string; pkg?: string}[] {
  const doc = readFileSync(join(ROOT, 'docs', 'performance.md'), 'utf8')
  const section = doc.split(/^## /m).find((s) => s.startsWith('Kept tricks'))
  if (!section) throw new Error('docs/performance.md has no "## Kept tricks" section')
  return section
    .split('\n')
    .filter((line) => /^\|\s*[^-\s|]/.test(line) && !/^\|\s*trick\s*\|/i.test(line))
    .map((line) => {
      const cells = line.split('|').map((c) => c.trim())
      const module = /`((?:src|scripts|bin)\/[^`]+)`/.exec(cells[2] ?? '')?.[1]
      const pinned = /^`([^`\s]+)`/.exec(cells[3] ?? '')?.[1]
      if (!module) throw new Error(`docs/performance.md, Kept tricks: no \`src/…\` or \`scripts/…\` module in: ${line}`)
      return {module, pkg: pinned}
    })
}

/** The bare package specifiers with a subpath that a module imports or requires. */
function subpathImports(text: string): {name: string; subpath: string}[] {
  const found: {name: string; subpath: string}[] = []
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bresolve\s*\(\s*)(['"])([^'"]+)\1/g)) {
    const spec = m[2]
    if (spec.startsWith('.') || spec.startsWith('node:') || spec.startsWith('/')) continue
    const parts = spec.split('/')
    const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
    const subpath = parts.slice(spec.startsWith('@') ? 2 : 1).join('/')
    if (subpath) found.push({name, subpath})
  }
  return found
}

/** True when the package's "exports" offers `./subpath` (a key, or a pattern with one *). */
function exported(name: string, subpath: string): boolean {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')) as {exports?: unknown}
  if (!manifest.exports || typeof manifest.exports !== 'object') return false
  const key = `./${subpath}`
  return Object.keys(manifest.exports).some((k) => {
    if (k === key) return true
    const star = k.indexOf('*')
    return star >= 0 && key.startsWith(k.slice(0, star)) && key.endsWith(k.slice(star + 1))
  })
}

describe('private internals and V8 flags in src/', () => {
  const kept = keptTricks()
  const keptModules = new Set(kept.map((k) => k.module))

  it('only the kept tricks set a V8 flag or import a file a package does not export', () => {
    const offenders: string[] = []
    for (const {name: rel, text: source} of srcModules()) {
      // code only: a comment may name what it does not do
      const text = codeLines(source).map((l) => l.code).join('\n')
      const why: string[] = []
      if (/setFlagsFromString|--expose[-_]gc/.test(text)) why.push('sets a V8 flag')
      for (const {name, subpath} of subpathImports(text)) {
        if (!existsSync(join(ROOT, 'node_modules', ...name.split('/'), 'package.json'))) continue
        if (!exported(name, subpath)) why.push(`imports ${name}/${subpath}, which ${name} does not export`)
      }
      if (why.length > 0 && !keptModules.has(rel)) offenders.push(`${rel}: ${why.join('; ')}`)
    }
    expect(offenders).toEqual([])
  })

  it('every kept trick is a module of src/ or scripts/, and the package it reaches into is pinned to one exact version', () => {
    for (const {module, pkg: name} of kept) {
      expect(existsSync(join(ROOT, module)), module).toBe(true)
      if (!name) continue
      const spec = pkg.dependencies[name] ?? pkg.devDependencies[name]
      expect(spec, `${name} in package.json`).toMatch(/^\d+\.\d+\.\d+$/)
      expect((JSON.parse(readFileSync(join(ROOT, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')) as {version: string}).version, `${name} installed`).toBe(spec)
    }
  })
})
