/**
 * `pay sandbox open`: asks the running sandbox where its dashboard is (control API GET /_sandbox/dashboard), prints
 * the URL (stdout: data) and opens it in the browser where there is one (src/operation/browser.ts: $BROWSER, else the
 * platform's opener; none on a machine without a display). The CLI's side of the dashboard: it loads nothing of the
 * dashboard's pages.
 */
import {PayError} from '../../base/errors.js'
import type {Output} from '../../output/output.js'
import {printable} from '../../output/printable.js'
import type {ControlCall} from '../deliveries.js'
import type {OpenResult} from '../../operation/browser.js'

interface OpenOptions {
  /** false: print the URL only (--no-browser). */
  browser: boolean
  /** Starts a browser on the URL (src/operation/browser.ts's openBrowser). */
  open: (url: string) => Promise<OpenResult>
}

export async function runSandboxOpen(call: ControlCall, options: OpenOptions, out: Output): Promise<{url: string; opened: boolean}> {
  const info = (await call('dashboard.get')) as {enabled?: boolean; url?: string | null}
  if (!info.enabled || typeof info.url !== 'string') {
    throw new PayError('the sandbox runs without its dashboard (started with --no-dashboard)', 1, 'restart it without --no-dashboard: pay sandbox start')
  }
  const url = info.url
  const opened = options.browser ? (await options.open(url)) === 'opened' : false
  if (out.json) out.data(JSON.stringify({url, opened}))
  else out.data(printable(url))
  if (!options.browser) return {url, opened}
  out.info(opened ? 'Opened the sandbox dashboard in the browser.' : 'No browser to open here (no display, and $BROWSER is not set): open the URL above yourself.')
  return {url, opened}
}
