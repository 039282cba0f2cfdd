/**
 * Secrets in the OS keyring, against a real Secret Service: a private D-Bus session with gnome-keyring (Debian's
 * packages; .ci/run installs them), the way a Linux desktop keeps them. What only processes show: where
 * `pay profiles add` puts each secret, that a command reads it back from the keyring for a token and not at all
 * while the cached token serves, that no file under the config or state dirs ever holds it, and PAY_SECRET_STORE
 * forcing either. Where there is no D-Bus session: test/config/secret-store.test.ts.
 */
import {type ChildProcess, execFileSync, spawn} from 'node:child_process'
import {createHmac} from 'node:crypto'
import {mkdtempSync, readFileSync, readdirSync, statSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../../src/sandbox/index.js'
import {ROOT, json, runCli, tempConfigDir} from '../helpers/cli.js'
import {ACME, start} from '../helpers/sandbox-http.js'

const which = (tool: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
}
const haveSecretService = which('dbus-daemon') && which('gnome-keyring-daemon')

let sb: Sandbox
beforeAll(async () => {
  sb = await start()
})
afterAll(async () => {
  await sb?.close()
})

/** Every file below `dir`, as text, for the secrets that must not be in any. */
function filesBelow(dir: string): {path: string; text: string}[] {
  const found: {path: string; text: string}[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) found.push(...filesBelow(path))
    else found.push({path, text: readFileSync(path, 'latin1')})
  }
  return found
}

function profilesFile(config: string): {profiles: Record<string, Record<string, unknown>>} {
  return JSON.parse(readFileSync(join(config, 'profiles.json'), 'utf8'))
}

describe.skipIf(!haveSecretService)('with a Secret Service (D-Bus session + gnome-keyring)', () => {
  let home: string
  let busPid: number
  let keyringDaemon: ChildProcess
  let bus: Record<string, string>

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'pay-keyring-home-'))
    const [address, pid] = execFileSync('dbus-daemon', ['--session', '--fork', '--print-address=1', '--print-pid=1'], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore']}).trim().split('\n')
    busPid = Number(pid)
    bus = {DBUS_SESSION_BUS_ADDRESS: address, HOME: home}
    keyringDaemon = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {env: {...process.env, ...bus}, stdio: ['pipe', 'pipe', 'ignore']})
    keyringDaemon.stdin!.end('test-keyring-password')
    // ready once it has registered on the bus and printed its control directory
    await new Promise<void>((resolve, reject) => {
      keyringDaemon.stdout!.once('data', () => resolve())
      keyringDaemon.once('exit', (code) => reject(new Error(`gnome-keyring-daemon exited ${code}`)))
    })
  })
  afterAll(() => {
    keyringDaemon?.kill()
    if (busPid) process.kill(busPid)
  })

  /** The keyring's entry of a profile's secret, read with the binding pay uses, in a process on the same bus. */
  function keyringEntry(id: string, field: string): string {
    const script = `import('@napi-rs/keyring').then(async ({AsyncEntry}) => process.stdout.write(JSON.stringify(await new AsyncEntry('pay-cli', ${JSON.stringify(`${id}:${field}`)}).getPassword())))`
    return JSON.parse(execFileSync(process.execPath, ['-e', script], {cwd: ROOT, env: {...process.env, ...bus}, encoding: 'utf8'}))
  }

  it('keeps the secrets in the keyring only; a command reads them for a token, not while the token is cached', async () => {
    const config = tempConfigDir()
    const state = tempConfigDir()
    const env = {...bus, PAY_CONFIG_DIR: config, XDG_STATE_HOME: state}
    const added = await runCli(['profiles', 'add', 'acme', '--base-url', sb.url, '--client-id', ACME.client_id, '--use'], {env: {...env, PAY_CLIENT_SECRET: ACME.client_secret, PAY_WEBHOOK_SECRET: ACME.webhook_secret}})
    expect(added.code, added.stderr).toBe(0)
    expect(added.stderr).toContain('secrets in the OS keyring')
    const stored = profilesFile(config).profiles.acme as {client_secret?: string; keyring: {id: string; fields: string[]}}
    expect(stored.client_secret).toBeUndefined()
    expect(stored.keyring.fields).toEqual(['client_secret', 'webhook_secret'])
    expect(keyringEntry(stored.keyring.id, 'client_secret')).toBe(ACME.client_secret)

    const shown = json(await runCli(['profiles', 'show', '--json'], {env}))
    expect(shown.client_secret).toBe('[REDACTED] (in the OS keyring)')
    expect(shown.sources).toMatchObject({clientSecret: 'keyring', webhookSecret: 'keyring'})

    // a token: the secret read from the keyring
    const first = await runCli(['balance', '--json'], {env})
    expect(first.code, first.stderr).toBe(0)
    // the cached token serves with no keyring reachable at all
    const cached = await runCli(['balance', '--json'], {env: {...env, DBUS_SESSION_BUS_ADDRESS: undefined}})
    expect(cached.code, cached.stderr).toBe(0)
    // without the token, and without the keyring: said, exit 3
    expect((await runCli(['logout'], {env})).code).toBe(0)
    const locked = await runCli(['balance'], {env: {...env, DBUS_SESSION_BUS_ADDRESS: undefined}})
    expect(locked.code).toBe(3)
    expect(locked.stderr).toContain('the client secret of profile "acme" is in the OS keyring, which cannot be read now: no D-Bus session')
    // a keyring that answers without the entry: said so, with what to do
    const elsewhere = await runCli(['balance'], {env: {...env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus'}})
    expect(elsewhere.code).toBe(3)
    expect(elsewhere.stderr).toMatch(/client secret of profile "acme" (was not found in|is in) the OS keyring/)

    // the webhook secret comes from the keyring too: trigger signs with it
    const received: {signature?: string; body?: string} = {}
    const receiver: Server = createServer((req, res) => {
      let body = ''
      req.on('data', (d) => (body += d)).on('end', () => {
        received.signature = String(req.headers['service-signature'])
        received.body = body
        res.end('ok')
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const port = (receiver.address() as {port: number}).port
    const trigger = await runCli(['webhook', 'trigger', 'collection.succeeded', '--to', `http://127.0.0.1:${port}/hook`], {env})
    receiver.close()
    expect(trigger.code, trigger.stderr).toBe(0)
    const [, t, v1] = /t=(\d+),v1=([0-9a-f]+)/.exec(received.signature!)!
    expect(v1).toBe(createHmac('sha256', ACME.webhook_secret).update(`${t}.${received.body}`).digest('hex'))

    // no file pay wrote holds either secret
    for (const {path, text} of [...filesBelow(config), ...filesBelow(state)]) {
      expect(text.includes(ACME.client_secret), path).toBe(false)
      expect(text.includes(ACME.webhook_secret), path).toBe(false)
    }
  })

  it('PAY_SECRET_STORE=file keeps them in the file; migrate moves them in and out; remove deletes the entries', async () => {
    const config = tempConfigDir()
    const env = {...bus, PAY_CONFIG_DIR: config}
    const r = await runCli(['profiles', 'add', 'shop', '--client-id', 'cli_9'], {env: {...env, PAY_CLIENT_SECRET: 'migrating-secret', PAY_SECRET_STORE: 'file'}})
    expect(r.code, r.stderr).toBe(0)
    expect(profilesFile(config).profiles.shop.client_secret).toBe('migrating-secret')

    const moved = await runCli(['profiles', 'migrate', '--json'], {env})
    expect(moved.code, moved.stderr).toBe(0)
    expect(json(moved)).toEqual([{profile: 'shop', moved: ['client_secret'], store: 'keyring'}])
    const inKeyring = profilesFile(config).profiles.shop as {client_secret?: string; keyring: {id: string}}
    expect(inKeyring.client_secret).toBeUndefined()
    expect(keyringEntry(inKeyring.keyring.id, 'client_secret')).toBe('migrating-secret')
    expect(readFileSync(join(config, 'profiles.json'), 'utf8')).not.toContain('migrating-secret')

    const back = await runCli(['profiles', 'migrate', 'shop', '--to', 'file'], {env})
    expect(back.code, back.stderr).toBe(0)
    expect(profilesFile(config).profiles.shop.client_secret).toBe('migrating-secret')
    expect(keyringEntry(inKeyring.keyring.id, 'client_secret')).toBeNull()

    await runCli(['profiles', 'migrate'], {env})
    const id = (profilesFile(config).profiles.shop as {keyring: {id: string}}).keyring.id
    expect(keyringEntry(id, 'client_secret')).toBe('migrating-secret')
    expect((await runCli(['profiles', 'remove', 'shop'], {env})).code).toBe(0)
    expect(keyringEntry(id, 'client_secret')).toBeNull()
  })
})
