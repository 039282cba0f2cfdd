/**
 * Extra request-body input: `--data JSON|@file|-` and repeatable `-F key=value` / `-F key:=json`.
 * `key=value` always sends a string (so amounts stay decimal strings); `key:=json` sends a parsed JSON value;
 * dotted keys nest: `-F destination.bank_code=044`.
 */
import {InputError} from '../base/errors.js'
import {parseMarked, stringifyMarked} from '../base/json-numbers.js'

export async function readDataFlag(data: string | undefined, stdin?: NodeJS.ReadableStream): Promise<unknown> {
  return (await readData(data, stdin))?.value
}

/** --data read and parsed: `text` as given, its `value`, and the flag (or file, or stdin) it came from. */
async function readData(data: string | undefined, stdin?: NodeJS.ReadableStream): Promise<{text: string; value: unknown; source: string} | undefined> {
  if (data === undefined) return undefined
  let text: string
  let source = '--data'
  if (data === '-') {
    const chunks: Buffer[] = []
    // process.stdin only when read: touching it builds a stream (about 2 ms of start-up for a /dev/null stdin)
    for await (const chunk of stdin ?? process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))
    text = Buffer.concat(chunks).toString('utf8')
    source = '--data - (stdin)'
  } else if (data.startsWith('@')) {
    try {
      text = await process.getBuiltinModule('node:fs/promises').readFile(data.slice(1), 'utf8') // loaded only for @file
    } catch (err) {
      throw InputError.one('--data', `cannot read ${data.slice(1)}: ${(err as Error).message}`)
    }
    source = `--data ${data}`
  } else text = data
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw InputError.one(source, 'must be valid JSON')
  }
  const bad = prototypeKey(value)
  if (bad) throw InputError.one(source, `must not use the key "${bad}" (${PROTO_RULE})`)
  return {text, value, source}
}

/**
 * `pay api`'s body from --data and -F (mergeBody): `body`, the value checks and the live-money question read, and
 * `sent`, what goes on the wire: the same value, or, when a number in --data or a `-F key:=json` would change as a
 * JS number (12345678901234567890, 1.50), the JSON text with every such number as the user wrote it.
 */
export async function rawBodyInput(data: string | undefined, fields: string[] | undefined, stdin?: NodeJS.ReadableStream): Promise<{body: unknown; sent: unknown}> {
  const given = await readData(data, stdin)
  const body = mergeBody(undefined, given?.value, parseFieldFlags(fields))
  const exactData = given === undefined ? undefined : parseMarked(given.text)
  const exactFields = parseFieldFlags(fields, parseMarked)
  if (exactData === undefined && !(fields ?? []).some((f) => /^[A-Za-z0-9_.-]+:=/.test(f) && parseMarked(f.slice(f.indexOf(':=') + 2)) !== undefined)) return {body, sent: body}
  return {body, sent: stringifyMarked(mergeBody(undefined, exactData ?? given?.value, exactFields))}
}

/** Keys that would reach an object's prototype when merged: refused wherever they appear. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])
const PROTO_RULE = '__proto__, constructor and prototype are refused as keys'

/** The first prototype key anywhere in a JSON value (iterative: a deep value cannot overflow the stack). */
function prototypeKey(value: unknown): string | undefined {
  const stack = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (!v || typeof v !== 'object') continue
    for (const [k, child] of Object.entries(v)) {
      if (PROTOTYPE_KEYS.has(k)) return k
      stack.push(child)
    }
  }
  return undefined
}

/** -F as an object; `parse` reads a `key:=json` value (parseMarked: numbers kept as written; undefined: JSON.parse's value). */
export function parseFieldFlags(fields: string[] | undefined, parse?: (text: string) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const raw of fields ?? []) {
    const m = /^([A-Za-z0-9_.-]+)(:=|=)([\s\S]*)$/.exec(raw)
    if (!m) throw InputError.one('-F', `"${raw}" must be key=value or key:=json`)
    const [, key, op, text] = m
    const badPart = key.split('.').find((part) => PROTOTYPE_KEYS.has(part))
    if (badPart) throw InputError.one('-F', `"${raw}" must not use the key "${badPart}" (${PROTO_RULE})`)
    let value: unknown = text
    if (op === ':=') {
      try {
        value = parse?.(text) ?? JSON.parse(text)
      } catch {
        throw InputError.one('-F', `value of ${key} after := must be JSON (got ${text})`)
      }
      const bad = prototypeKey(value)
      if (bad) throw InputError.one('-F', `value of ${key} must not use the key "${bad}" (${PROTO_RULE})`)
    }
    setPath(out, key.split('.'), value)
  }
  return out
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let cur = target
  for (const part of path.slice(0, -1)) {
    if (!cur[part] || typeof cur[part] !== 'object' || Array.isArray(cur[part])) cur[part] = {}
    cur = cur[part] as Record<string, unknown>
  }
  cur[path.at(-1)!] = value
}

/**
 * The body sent: the command's own fields, then --data, then -F (later wins). Only objects can be merged;
 * a non-object --data is used as the whole body when nothing else is given.
 */
export function mergeBody(base: Record<string, unknown> | undefined, data: unknown, fields: Record<string, unknown>): unknown {
  if (data !== undefined && (data === null || typeof data !== 'object' || Array.isArray(data))) {
    if (base && Object.keys(base).length > 0) throw InputError.one('--data', 'must be a JSON object to merge with the command\'s fields')
    if (Object.keys(fields).length > 0) throw InputError.one('-F', 'cannot be combined with a --data that is not a JSON object')
    return data
  }
  if (data === undefined && isEmpty(fields)) return base === undefined ? undefined : {...base} // (a bulk row: no merge to do)
  return deepMerge(deepMerge({...base}, (data as Record<string, unknown>) ?? {}), fields)
}

function isEmpty(o: Record<string, unknown>): boolean {
  for (const _ in o) return false
  return true
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(b)) {
    const cur = a[k]
    a[k] = v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' && !Array.isArray(cur) ? deepMerge({...(cur as Record<string, unknown>)}, v as Record<string, unknown>) : v
  }
  return a
}
