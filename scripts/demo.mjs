// `npm run demo`: the main job, against the embedded sandbox. Starts the sandbox in this process, then runs the
// built `pay` as a new user would: login, a collection and its outcome, a pay link, the balance, and the signed
// webhook events that `pay webhook listen` received meanwhile. Uses a throw-away config dir: your own profiles
// are not touched.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'bin', 'run.cjs')
const {startSandbox} = await import(join(root, 'dist', 'sandbox', 'index.js'))

const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\u001B[1m${s}\u001B[22m` : s)
const configDir = mkdtempSync(join(tmpdir(), 'pay-demo-'))
const sandbox = await startSandbox({port: 0, settleMs: 1500})
const creds = sandbox.seed
const env = {...process.env, PAY_CONFIG_DIR: configDir}
for (const k of ['PAY_PROFILE', 'PAY_BASE_URL', 'PAY_CLIENT_ID', 'PAY_CLIENT_SECRET', 'PAY_ACCOUNT_REF', 'PAY_WEBHOOK_SECRET']) delete env[k]

let failures = 0
function pay(args, {extraEnv = {}, show = args.join(' ')} = {}) {
  console.log(`\n${bold(`$ pay ${show}`)}`)
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {env: {...env, ...extraEnv}, stdio: ['ignore', 'inherit', 'inherit']})
    child.on('close', (code) => {
      if (code !== 0) {
        failures++
        console.log(`(exit ${code})`)
      }
      resolve(code)
    })
  })
}

try {
  console.log(`Sandbox running at ${sandbox.url} (merchant "${creds.merchants[0].name}", client ${creds.client_id}).`)
  await pay(['login', '--profile', 'sandbox', '--base-url', sandbox.url, '--client-id', creds.client_id], {
    extraEnv: {PAY_CLIENT_SECRET: creds.client_secret, PAY_WEBHOOK_SECRET: creds.webhook_secret},
    show: `login --profile sandbox --base-url ${sandbox.url} --client-id ${creds.client_id}   # secrets from PAY_CLIENT_SECRET / PAY_WEBHOOK_SECRET`,
  })

  // A webhook receiver, as a developer would run it in a second terminal. It registers itself with the sandbox.
  console.log(`\n${bold('$ pay webhook listen --tunnel none')}   # in the background; its output is shown at the end`)
  const listener = spawn(process.execPath, [bin, 'webhook', 'listen', '--tunnel', 'none'], {env, stdio: ['ignore', 'pipe', 'pipe']})
  let received = ''
  let log = ''
  listener.stdout.setEncoding('utf8').on('data', (d) => (received += d))
  listener.stderr.setEncoding('utf8').on('data', (d) => (log += d))
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`webhook listener did not start:\n${log}`)), 15_000)
    const check = () => {
      if (/Ready\./.test(log)) {
        clearTimeout(timer)
        resolve()
      } else setTimeout(check, 50)
    }
    check()
  })

  await pay(['account'])
  await pay(['metadata', 'providers'])
  await pay(['collections', 'create', '--amount', '250.00', '--currency', 'KES', '--reference', 'demo-order-1', '--mobile', '254700000001', '--provider', 'mpesa', '--wait'])
  await pay(['transactions', 'verify', 'demo-order-1'])
  await pay(['checkout', 'create', '--amount', '99.00', '--currency', 'KES', '--reference', 'demo-link-1', '--success-url', 'https://shop.example/paid', '--cancel-url', 'https://shop.example/cart'])
  await pay(['balance'])

  await new Promise((r) => setTimeout(r, 1000))
  listener.kill('SIGINT')
  await new Promise((r) => listener.on('close', r))
  console.log(`\n${bold('Webhook events received by `pay webhook listen`:')}`)
  process.stdout.write(received || '(none)\n')
  process.stdout.write(log.split('\n').filter((l) => !/Ready\.|Listening on|No tunnel|Sandbox:/.test(l)).join('\n'))
  console.log(`\nDone. Try it yourself: \`pay sandbox start\` in one terminal, then \`pay profiles use sandbox\` and any command (\`pay --help\`).`)
} finally {
  await sandbox.close()
  rmSync(configDir, {recursive: true, force: true})
}
process.exitCode = failures > 0 ? 1 : 0
