/** The operation journal: the store on disk and the client hook, wired for one run of `pay`. */
import {stateDir} from '../config/paths.js'
import type {Output} from '../output/output.js'
import {renderError} from '../output/errors.js'
import {JournalGate, type GateOptions} from './gate.js'
import {JournalStore, retentionDaysFrom} from './store.js'

export {JournalGate} from './gate.js'
export {JournalStore} from './store.js'

/** The journal in the state dir, reporting through `out`. */
export function openJournalStore(out: Output, env: NodeJS.ProcessEnv = process.env): JournalStore {
  return new JournalStore(stateDir(env), {retentionDays: retentionDaysFrom(env), warn: (text) => out.warnQuoting(text)})
}

/** What a caller other than the command line tells the journal: its origin and the argv of its resume command. */
export type JournalUse = Pick<GateOptions, 'origin' | 'argv' | 'newRequest'>

export function createJournalGate(out: Output, forceNew = false, env: NodeJS.ProcessEnv = process.env, use: JournalUse = {}): JournalGate {
  return new JournalGate(openJournalStore(out, env), {
    ...use,
    forceNew,
    // notices and warnings quote the journal file (keys, times), which anything may have written: made printable
    notice: (text) => out.trace(text),
    warn: (text) => out.warnQuoting(text),
    interrupted: (err) => renderError(out, err),
  })
}
