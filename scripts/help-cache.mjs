// Writes dist/help-cache.json (an index) and dist/help-cache.<hash>.txt (the texts): the help of bare `pay`, of every topic, command and alias, rendered by oclif's
// own Help class exactly as `pay … --help` renders it (same Config, same argv, same width), once without and
// once with colour. bin/run.cjs serves it without loading @oclif/core. Run by scripts/build.mjs after the manifest.
//
// `node scripts/help-cache.mjs` writes the file; with `--render` it prints one rendering (colour as the
// environment says) as JSON on stdout: the build runs that twice, with FORCE_COLOR=0 and FORCE_COLOR=3.
import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync, readFileSync, renameSync, statSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join, relative} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const HELP_COLUMNS = 80 // the same as bin/run.cjs
const USER_AGENT_MARK = '\u0000USER_AGENT\u0000'

async function render() {
  globalThis.oclif = {...globalThis.oclif, columns: HELP_COLUMNS, enableAutoTranspile: false} // as bin/run.cjs sets it
  // the oclif that bin/run.cjs runs: the build's bundle (scripts/bundle.mjs) when there is one
  const bundled = join(root, 'dist', 'vendor', 'oclif.js')
  const {Config, loadHelpClass} = existsSync(bundled) ? await import(pathToFileURL(bundled).href) : await import('@oclif/core')
  // As bin/run.cjs → execute({dir}) → run(): Config.load from the bin file.
  const config = await Config.load(join(root, 'bin', 'run.cjs'))
  // command_not_found (src/hooks/command-not-found.ts) runs only when no command matched: it changes no help
  const helpHooks = Object.keys(config.pjson.oclif.hooks ?? {}).filter((name) => name !== 'command_not_found')
  if ((config.plugins?.size ?? 0) > 1 || helpHooks.length > 0) {
    // Plugins or hooks could change what `--help` does at run time: no cache, everything goes through oclif.
    return {subjects: {}, userAgent: config.userAgent, skipped: 'plugins or hooks are configured'}
  }
  const Help = await loadHelpClass(config)
  const sep = config.topicSeparator
  const subjects = {'': []}
  for (const topic of config.topics) subjects[topic.name.split(':').join(sep)] = topic.name.split(':')
  for (const id of config.commandIDs) {
    const cmd = config.findCommand(id)
    // Dynamic help evaluates flag defaults at run time: always ask oclif.
    if (!cmd || cmd.hasDynamicHelp) continue
    subjects[id.split(':').join(sep)] = id.split(':')
  }
  const out = {}
  const write = process.stdout.write
  for (const [key, words] of Object.entries(subjects)) {
    let text = ''
    process.stdout.write = (chunk) => {
      text += String(chunk)
      return true
    }
    try {
      // A fresh Config per subject, as each `pay … --help` process has: Help mutates the commands it shows.
      const fresh = await Config.load(join(root, 'bin', 'run.cjs'))
      const help = new Help(fresh, fresh.pjson.oclif.helpOptions ?? fresh.pjson.helpOptions)
      await help.showHelp([...words, '--help'])
    } finally {
      process.stdout.write = write
    }
    if (text.split(config.userAgent).length > 2) throw new Error(`help of "${key}" names the user agent twice`)
    out[key] = text.split(config.userAgent).join(USER_AGENT_MARK)
  }
  return {subjects: out, userAgent: config.userAgent}
}

function renderWith(env) {
  const childEnv = {...process.env, ...env}
  delete childEnv.NO_COLOR
  delete childEnv.OCLIF_COLUMNS
  delete childEnv.DEBUG
  const text = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--render'], {cwd: root, env: childEnv, maxBuffer: 64 * 1024 * 1024})
  return JSON.parse(String(text))
}

if (process.argv.includes('--render')) {
  process.stdout.write(JSON.stringify(await render()))
} else {
  const plain = renderWith({FORCE_COLOR: '0'})
  const color = renderWith({FORCE_COLOR: '3'})
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  // oclif's help colours (ux/theme colorize) when supports-color says stdout and stderr take colour, through
  // ansis: the copies oclif loads, resolved from @oclif/core's own entry, decide for the fast path too.
  const oclifEntry = createRequire(join(root, 'package.json')).resolve('@oclif/core')
  const ansis = createRequire(oclifEntry).resolve('ansis')
  const supportsColor = createRequire(oclifEntry).resolve('supports-color')
  // The texts go to a file of their own, each subject's plain and coloured text at a byte offset; the index
  // (dist/help-cache.json) names them. A fast path reads the small index and then one text by its offset, not
  // ~0.6 MB of JSON for one subject (or none: --version, an unknown command).
  const chunks = []
  let at = 0
  const place = (text) => {
    const bytes = Buffer.from(text, 'utf8')
    chunks.push(bytes)
    at += bytes.length
    return [at - bytes.length, bytes.length]
  }
  const subjects = {}
  for (const key of Object.keys(plain.subjects)) subjects[key] = [...place(plain.subjects[key]), ...place(color.subjects[key])]
  const texts = Buffer.concat(chunks)
  // named by its content: an index is never read with another build's texts
  const textFile = `help-cache.${createHash('sha256').update(texts).digest('hex').slice(0, 12)}.txt`
  const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))
  const cache = {
    format: 2,
    columns: HELP_COLUMNS,
    oclif: JSON.stringify(pjson.oclif),
    manifestSize: statSync(join(root, 'oclif.manifest.json')).size,
    dirname: pjson.oclif.dirname ?? pjson.oclif.bin ?? pjson.name,
    versionFlags: [...new Set(['--version', ...(pjson.oclif.additionalVersionFlags ?? [])])],
    helpFlags: [...new Set([...(pjson.oclif.additionalHelpFlags ?? []), '--help'])],
    ansis: relative(root, ansis),
    supportsColor: relative(root, supportsColor),
    // bin/run.cjs decides "no colour in a pipe" itself with supports-color 8's rule, and only for that major
    supportsColorMajor: Number(JSON.parse(readFileSync(join(dirname(supportsColor), 'package.json'), 'utf8')).version.split('.')[0]),
    userAgentMark: USER_AGENT_MARK,
    // the manifest's command ids, which an unknown command's suggestions are chosen from (the hook reads the manifest)
    commandIds: Object.keys(manifest.commands),
    textFile,
    // subject: [plain offset, plain bytes, colour offset, colour bytes] in textFile
    subjects,
  }
  // the texts first, then the index written aside and renamed into place: a `pay --help` running meanwhile reads
  // the old index or the new one, each with its own texts
  writeFileSync(join(root, 'dist', textFile), texts)
  const file = join(root, 'dist', 'help-cache.json')
  writeFileSync(`${file}.${process.pid}.tmp`, JSON.stringify(cache))
  renameSync(`${file}.${process.pid}.tmp`, file)
  console.log(`wrote dist/help-cache.json and dist/${textFile}: help of ${Object.keys(subjects).length} subjects${plain.skipped ? ` (none: ${plain.skipped})` : ''}`)
}
