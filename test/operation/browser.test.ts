/**
 * openBrowser (`checkout create --open`, `sandbox open`): the URL comes from the network, so only an absolute http(s)
 * URL is handed to the browser command, as the URL parser writes it; anything else is refused and nothing started.
 */
import {chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {openBrowser} from '../../src/operation/browser.js'

/** A $BROWSER that writes each argument it was given on a line of its own. */
function recordingBrowser(): {command: string; args: () => string[] | undefined} {
  const dir = mkdtempSync(join(tmpdir(), 'pay-browser-'))
  const file = join(dir, 'args.txt')
  const command = join(dir, 'browser.sh')
  writeFileSync(command, `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a" >> '${file}'; done\n`)
  chmodSync(command, 0o755)
  return {command, args: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(0, -1) : undefined)}
}

const until = async <T>(probe: () => T | undefined, ms: number): Promise<T | undefined> => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    const v = probe()
    if (v !== undefined) return v
  }
  return probe()
}

describe('openBrowser', () => {
  it('refuses what is not an absolute http(s) URL: a file URL, an option, javascript:, a relative path; nothing is started', async () => {
    const browser = recordingBrowser()
    for (const url of ['file:///etc/passwd', '--version', '-a', 'javascript:alert(1)', '/pay/CS_1', 'https:no-slashes', '']) {
      expect(await openBrowser(url, {BROWSER: browser.command}), url).toBe('refused')
    }
    await new Promise((r) => setTimeout(r, 200))
    expect(browser.args()).toBeUndefined()
  })

  it('hands the browser the URL as the parser writes it: one argument, starting with http, control characters encoded', async () => {
    const browser = recordingBrowser()
    expect(await openBrowser('https://pay.example/pay/CS_1\u001B]0;PWNED\u0007\u001B[2J', {BROWSER: browser.command})).toBe('opened')
    expect(await until(browser.args, 5000)).toEqual(['https://pay.example/pay/CS_1%1B]0;PWNED%07%1B[2J'])
  })

  it.runIf(process.platform === 'linux')('says when there is no browser here (no $BROWSER, no display)', async () => {
    expect(await openBrowser('https://pay.example/pay/CS_1', {PATH: ''})).toBe('no-browser')
  })
})
