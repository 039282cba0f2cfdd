/**
 * The lock file with its holder's record (src/config/holder-lock.ts), and the one-sender lock of the journal over it:
 * a stale lock that cannot be removed (a state dir turned read-only after kill -9) ends the command with what to fix
 * and the key that resumes it, never an endless wait; a holder can tell that its lock was taken over (the fence).
 * renameSync is made to fail (the lock's and the store's test hook) as it does for a user in a read-only directory:
 * these tests may run as root.
 */
import * as fs from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {HolderLock, StaleLockError} from '../../src/config/holder-lock.js'
import {JournalStore, StuckLockError} from '../../src/journal/store.js'
import {JournalGate} from '../../src/journal/gate.js'
import {ApiClient} from '../../src/client/api-client.js'
import {ExitCode} from '../../src/base/exit-codes.js'
import {tempConfigDir} from '../helpers/cli.js'

/** renameSync as a read-only directory answers a user (EACCES, EROFS) while `code` is set. */
const failRename = {code: undefined as string | undefined}
const rename: typeof fs.renameSync = (from, to) => {
  if (failRename.code) throw Object.assign(new Error(`${failRename.code}: rename`), {code: failRename.code})
  fs.renameSync(from, to)
}

/** A pid that names no process any more. */
const deadPid = async () => (await import('node:child_process')).spawnSync(process.execPath, ['-e', '']).pid
/** Fails a promise still pending after `ms` (on main the wait never ended). */
const within = <T>(p: Promise<T>, ms = 5000) => Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms))])

describe('a stale lock that cannot be removed', () => {
  it('takeOverIfStale throws StaleLockError (EACCES, EROFS), naming the file and why it is stale; ENOENT is another taker', async () => {
    const dir = tempConfigDir()
    const file = join(dir, 'x.lock')
    fs.writeFileSync(file, JSON.stringify({pid: await deadPid(), until: Date.now() + 60_000}))
    try {
      for (const code of ['EACCES', 'EROFS']) {
        failRename.code = code
        expect(() => new HolderLock(file, rename).takeOverIfStale()).toThrow(StaleLockError)
        expect(() => new HolderLock(file, rename).takeOverIfStale()).toThrow(new RegExp(`${code}; holder \\d+ is gone`))
      }
      failRename.code = 'ENOENT'
      expect(() => new HolderLock(file, rename).takeOverIfStale()).not.toThrow()
    } finally {
      failRename.code = undefined
    }
    new HolderLock(file).takeOverIfStale()
    expect(fs.existsSync(file)).toBe(false)
  })

  it("the journal's one-sender lock ends with StuckLockError (what to fix), never waits for ever", async () => {
    const dir = tempConfigDir()
    const store = new JournalStore(dir, {rename})
    store.open()
    fs.writeFileSync(join(store.dir, 'locks', 'req.lock'), JSON.stringify({pid: await deadPid(), until: Date.now() + 60_000}))
    failRename.code = 'EACCES'
    try {
      const held = within(store.holdSender('req', 60_000, () => undefined))
      await expect(held).rejects.toThrow(StuckLockError)
      await expect(held).rejects.toThrow(/cannot be removed: .*req\.lock \(EACCES; holder \d+ is gone\); nothing was sent/)
    } finally {
      failRename.code = undefined
    }
  })

  it('a re-run after kill -9 with the state dir read-only: exit 7, the key of the request left unknown and the command that resumes it', async () => {
    const dir = tempConfigDir()
    const body = {amount: '10.00', currency: 'KES', merchant_reference: 'u1', payment_method: 'mobile_money', mobile: '254712345678', provider: 'mpesa'}
    const run = async (store: JournalStore, stop?: () => void) => {
      const sent: string[] = []
      const transport = {
        async send(r: {url: string; headers: Record<string, string>; ready?: Promise<void>}) {
          if (r.url.endsWith('/v1/oauth/token')) return {status: 200, headers: {}, text: JSON.stringify({access_token: 'a'.repeat(64), token_type: 'Bearer', expires_in: 3600})}
          await r.ready
          sent.push(r.headers['idempotency-key'])
          stop?.()
          throw Object.assign(new Error('cut'), {code: 'ECONNRESET'})
        },
        async close() {},
      }
      const journal = new JournalGate(store, {notice: () => undefined, warn: () => undefined, argv: ['collections', 'create', '--reference', 'u1']})
      const client = new ApiClient({settings: {baseUrl: 'http://127.0.0.1:9', clientId: 'c', clientSecret: 's'}, userAgent: 't', retries: 0, sleep: async () => {}, transport, journal})
      try {
        await within(client.call('collections.create', {body}))
        return {sent}
      } catch (err) {
        return {sent, error: err as StuckLockError}
      }
    }
    // the first process: its request in flight, then killed (its lock left behind, naming a pid that is gone); its
    // attempt cut: the outcome is unknown, as a kill leaves it
    const gone = await deadPid()
    const first = await run(new JournalStore(dir), () => {
      const locks = join(dir, 'journal', 'locks')
      for (const name of fs.readdirSync(locks)) if (!name.startsWith('refs-')) fs.writeFileSync(join(locks, name), JSON.stringify({pid: gone, until: Date.now() + 60_000}))
    })
    expect(first.sent).toHaveLength(1)
    // its lock is left behind: the record in it is no longer the first process's, so its release left it there
    expect(fs.readdirSync(join(dir, 'journal', 'locks')).filter((n) => !n.startsWith('refs-'))).toHaveLength(1)
    failRename.code = 'EACCES' // the state dir is read-only now
    try {
      const again = await run(new JournalStore(dir, {rename}))
      expect(again.sent).toEqual([])
      expect(again.error).toBeInstanceOf(StuckLockError)
      expect(again.error?.exitCode).toBe(ExitCode.NETWORK)
      expect(again.error?.idempotencyKey).toBe(first.sent[0])
      expect(again.error?.resumeCommand).toContain(`--idempotency-key ${first.sent[0]}`)
      expect(again.error?.hint).toMatch(/outcome is unknown .*make .* writable by this user again/)
    } finally {
      failRename.code = undefined
    }
  })
})

describe('the fence', () => {
  it('holds() is true while the file holds our record, false once another took it over or it is gone', () => {
    const dir = tempConfigDir()
    const lock = new HolderLock(join(dir, 'f.lock'))
    const mine = lock.lock(60_000)
    expect(JSON.parse(mine).token).toMatch(/^[0-9a-f-]{36}$/)
    expect(lock.holds(mine)).toBe(true)
    fs.writeFileSync(lock.file, JSON.stringify({...JSON.parse(mine), token: 'another'}))
    expect(lock.holds(mine)).toBe(false)
    fs.unlinkSync(lock.file)
    expect(lock.holds(mine)).toBe(false)
  })
})
