// The sandbox in a process of its own for the benches that drive it with a CLI process and a plain loop (bulk runs,
// reconcile): neither client shares its event loop. Rate limits off (a bench measures throughput, not the limiter).
import {spawn} from 'node:child_process'
import {dirname, join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** The sandbox in its own process; resolves with its URL and acme's credentials. */
export function startSandboxProcess() {
  const script = `const m = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'sandbox', 'index.js')).href)});
    const sb = await m.startSandbox({port: 0, quiet: true, rateLimits: {writePerMinute: 1e9, writePerHour: 1e9, readPerMinute: 1e9, tokenPerMinutePerIp: 1e6, tokenPerMinutePerClient: 1e6}});
    const acme = sb.seed.merchants.find((x) => x.key === 'acme');
    console.log(JSON.stringify({url: sb.url, client_id: acme.clients[0].client_id, client_secret: acme.clients[0].client_secret}));
    const stop = () => sb.close().then(() => process.exit(0));
    process.on('SIGTERM', stop);
    process.stdin.resume().on('end', stop); // the bench ended, however it ended`
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {stdio: ['pipe', 'pipe', 'inherit']})
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      if (out.includes('\n')) resolve({...JSON.parse(out), stop: () => new Promise((r) => (child.on('close', r), child.kill('SIGTERM')))})
    })
    child.on('error', reject)
  })
}
