/** The operation journal: the store on disk and the client hook, wired for one run of `pay`. */
import {stateDir} from '../config/paths.js'
import type {Output} from '../output/output.js'
import {renderError} from '../output/errors.js'
import {printable} from '../output/printable.js'
import {JournalGate} from './gate.js'
import {JournalStore, retentionDaysFrom} from './store.js'

export {JournalGate} from './gate.js'
export {JournalStore} from './store.js'

/** Warnings on stderr, made printable: they quote the journal file (keys, times, paths), which anything may have written. */
const warnOn = (out: Output) => (text: string) => out.warn(printable(text))

/** The journal in the state dir, reporting through `out`. */
export function openJournalStore(out: Output, env: NodeJS.ProcessEnv = process.env): JournalStore {
  return new JournalStore(stateDir(env), {retentionDays: retentionDaysFrom(env), warn: warnOn(out)})
}

export function createJournalGate(out: Output, forceNew = false, env: NodeJS.ProcessEnv = process.env): JournalGate {
  return new JournalGate(openJournalStore(out, env), {
    forceNew,
    // dim on stderr, made printable: its text quotes the journal file (keys, times), which anything may have written
    notice: (text) => out.trace(text),
    warn: warnOn(out),
    interrupted: (err) => renderError(out, err),
  })
}
