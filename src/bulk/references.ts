/**
 * A reference is a promise across runs, for a bulk run: before anything is sent, every row whose reference already
 * names an accepted request of the same kind (a single command, or a row of another run with another body) refuses
 * the whole run (exit 5, each line named); while sending, each accepted row is added to the reference index
 * (src/journal/references.ts) for the checks of later runs and commands.
 */
import {ExitCode} from '../client/exit-codes.js'
import {PayError} from '../client/errors.js'
import type {JournalStore} from '../journal/store.js'
import {type AcceptedReference, type ReferenceScope, type ReferenceWriter, ReferenceIndex, acceptedSingles, describeAccepted, originOf} from '../journal/references.js'
import type {RowOutcome} from './run-journal.js'
import type {SpooledRow} from './spool.js'

/** Rows listed in full before the rest are only counted. */
const MAX_LISTED = 20

/**
 * Refuses the run (exit 5) when a row's reference already names another accepted request of its endpoint's scope.
 * Reads the spooled rows once per pass of the index (usually one), holding none of them.
 */
export async function checkReferences(store: JournalStore, scopeOf: (endpoint: string) => ReferenceScope, endpoints: Iterable<string>, rows: () => AsyncIterable<SpooledRow>, file: string): Promise<void> {
  if (!store.open()) return
  const listed: string[] = []
  let broken = 0
  for (const endpoint of endpoints) {
    const scope = scopeOf(endpoint)
    const index = new ReferenceIndex(store, scope)
    const ofEndpoint = async function* () {
      for await (const r of rows()) if (r.endpoint === endpoint) yield r
    }
    await index.check(ofEndpoint, acceptedSingles(store, scope), (line, earlier: AcceptedReference) => {
      broken++
      if (listed.length < MAX_LISTED) listed.push(`  ${file}:${line} reference ${earlier.ref}: ${originOf(earlier)}, ${describeAccepted(earlier)}`)
    })
  }
  if (broken === 0) return
  const more = broken > listed.length ? `\n  and ${broken - listed.length} more row(s)` : ''
  throw new PayError(
    `${broken} row(s) reuse a reference that already names another accepted request (another body, or a single command); nothing was sent:\n${listed.join('\n')}${more}`,
    ExitCode.CONFLICT,
    'give those rows other references, or remove them (their references were accepted already; look one up with `pay transactions verify REF`); --force-new sends every row of the file again as a new request',
  )
}

/** Adds each accepted row (sent by this run) to its scope's reference index; `end` writes what is left. */
export class AcceptedRows {
  private readonly writers = new Map<string, ReferenceWriter>()

  constructor(
    private readonly store: JournalStore,
    private readonly scopeOf: (endpoint: string) => ReferenceScope,
    private readonly run: string,
    private readonly file: string,
  ) {}

  add(r: SpooledRow, o: RowOutcome): void {
    if (r.reference === null || o.outcome !== 'accepted' || o.earlier) return
    let writer = this.writers.get(r.endpoint)
    if (writer === undefined) {
      writer = new ReferenceIndex(this.store, this.scopeOf(r.endpoint)).writer()
      this.writers.set(r.endpoint, writer)
    }
    writer.add({ref: r.reference, key: r.key, at: o.state_at ?? new Date().toISOString(), id: o.id ?? undefined, state: o.state ?? undefined, run: this.run, line: r.line, file: this.file})
  }

  end(): void {
    for (const w of this.writers.values()) w.end()
  }
}
