/**
 * One request policy: no module of src/ but src/client/request-policy.ts classifies a failure (refused / unknown /
 * accepted, "maybe sent") or decides a retry or a back-off. The rules are read from the source text: a new
 * `status === 503` check, a `xxxFailureState` function or an exponential back-off elsewhere fails this test; the
 * module that needs one asks the policy instead (docs/architecture.md: "change the retry rule").
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT, codeLines, srcModules} from '../helpers/source-scan.js'

const POLICY = 'src/client/request-policy.ts'

/** Where a status or a wait is about something else than what a request to the service came to. */
const ELSEWHERE: Record<string, string> = {
  'src/sandbox/': 'the emulator of the service: it answers requests, it sends none to the service',
  'src/base/exit-codes.ts': 'the documented exit code of a status (README: Exit codes), not the class of the request',
  'src/base/errors.ts': 'what to do next for a status (hintFor): words, not a decision',
  'src/webhooks/tunnels/': "a tunnel provider's own API (localtunnel, ngrok), not the Payments Service",
  'src/config/': "the config dir's lock files (token cache, profiles): waits for another process, not requests",
}

/** What classifying a failure or deciding a retry looks like in source text. */
const RULES: [string, RegExp][] = [
  ['a function or value of its own about retries, back-off or failure classes', /\b(?:function|const|let|class)\s+\w*(?:[rR]etryable|[bB]ackoff|[fF]ailureState|[cC]ertainFailure|[mM]aybeSent|classifyFailure|[jJ]itter)\w*/],
  ['an HTTP status compared with a retryable or maybe-done status', /\b(?:status|http_status|statusCode)\s*(?:===|!==|==|>=|>|<=|<)\s*(?:408|429|5\d\d)\b|\b(?:408|429|5\d\d)\s*(?:===|!==|==|<=|<)\s*[\w.]*status\b/],
  ['a set of retryable statuses', /new Set\(\[[^\]]*\b(?:408|429|50[0-4])\b/],
  ['an exponential back-off', /\*\*\s*\(?\s*(?:attempt|retry|retries|tries)\b|\b2\s*\*\*\s*\w/],
  ['a random wait (jitter)', /Math\.random\(\)[^\n]*(?:delay|wait|backoff)|(?:delay|wait|backoff)[^\n]*Math\.random\(\)/i],
]

/** The lines of `text` that break a rule, without its comments. */
export function breaches(text: string): string[] {
  const found: string[] = []
  for (const {n, code, line} of codeLines(text)) for (const [what, rule] of RULES) if (rule.test(code)) found.push(`line ${n}: ${what}: ${line.trim()}`)
  return found
}

describe('one request policy', () => {
  it('no module of src/ but the policy classifies failures or decides retries', () => {
    const problems: string[] = []
    for (const {name, text} of srcModules()) {
      if (name === POLICY || Object.keys(ELSEWHERE).some((p) => name.startsWith(p))) continue
      for (const b of breaches(text)) problems.push(`${name} ${b}`)
    }
    expect(problems, 'ask src/client/request-policy.ts instead (or, for something that is not a request to the service, add the file to ELSEWHERE with the reason)').toEqual([])
  })

  it('the rules catch what they are for (so that the test above can fail)', () => {
    expect(breaches('const transient = status === undefined || status >= 500 || status === 408')).toHaveLength(1)
    expect(breaches('export function rowFailureState(status: number) {')).toHaveLength(1)
    expect(breaches('const RETRYABLE = new Set([429, 502, 503])')).toHaveLength(1)
    expect(breaches('await sleep(250 * 2 ** attempt)')).toHaveLength(1)
    expect(breaches('const wait = base + Math.random() * base')).toHaveLength(1)
    expect(breaches('// status >= 500 in a comment\nconst ok = 1')).toEqual([])
  })

  it('the client core, the journal gate and the bulk sending pass ask the policy', () => {
    for (const file of ['src/client/api-client.ts', 'src/journal/gate.ts', 'src/bulk/send.ts', 'src/bulk/rate.ts', 'src/operation/wait.ts']) {
      expect(readFileSync(join(ROOT, file), 'utf8'), file).toMatch(/from '\.{1,2}\/(?:client\/)?request-policy\.js'/)
    }
  })
})
