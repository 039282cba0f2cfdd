#!/usr/bin/env node
/**
 * How much of the test suite starts the built CLI (bin/run.cjs) as a process. Reads every test/**\/*.test.ts with
 * the TypeScript parser and classifies its call sites:
 *   spawn       starts the built CLI: runCli, probedRun, startListen, a harness's `.pay(…)`, `pay(…)` of
 *               test/helpers/in-process.ts for its PROCESS_ONLY commands (or a command line it cannot read),
 *               spawn/execFile/StdioClientTransport given BIN, and any function of the file that does one of these;
 *   command run runs a command in-process: runInProcess, runCommand, runWithContext, startCommand, listenCommand,
 *               listenInProcess, a harness's `.run(…)` or `.command(…)`, `pay(…)`
 *               of in-process.ts for any other command, a run function (run…) imported from src/, and any function
 *               of the file that does one of these;
 *   in-process  a command run, or any other call of something imported from src/.
 * A call inside such a local function counts once, at the function's call sites, not in its body.
 * Prints three shares: of the command runs (spawn / (spawn + in-process command runs): the figure of issue 32), of
 * all call sites into pay (spawn / (spawn + in-process)), and of the test cases (it/test) that start the CLI at
 * least once (directly, through a local function, or in a beforeAll/beforeEach of their file).
 *   node scripts/test-spawn-share.mjs [--files]
 */
import {readFileSync, readdirSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import ts from 'typescript'

const ROOT = new URL('..', import.meta.url).pathname
const SPAWN_HELPERS = new Set(['runCli', 'probedRun', 'startListen'])
const INPROC_HELPERS = new Set(['runInProcess', 'runWithContext', 'runCommand', 'startCommand', 'listenCommand', 'listenInProcess'])
const PROCESS_ONLY = ['webhook listen', 'sandbox start'] // test/helpers/in-process.ts's
const SPAWN_FUNCS = new Set(['spawn', 'spawnSync', 'execFile', 'execFileSync', 'fork'])

function walk(dir, out = []) {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e)
    if (statSync(p).isDirectory()) {
      if (e !== 'bench' && e !== 'node_modules') walk(p, out)
    } else if (e.endsWith('.test.ts')) out.push(p)
  }
  return out
}

function calleeName(node) {
  const e = node.expression
  if (ts.isIdentifier(e)) return {name: e.text}
  if (ts.isPropertyAccessExpression(e)) return {name: e.name.text, object: e.expression}
  return {}
}

function mentionsBin(node) {
  let found = false
  const visit = (n) => {
    if (found) return
    if (ts.isIdentifier(n) && n.text === 'BIN') found = true
    else ts.forEachChild(n, visit)
  }
  node.arguments?.forEach(visit)
  return found
}

function analyse(file) {
  const text = readFileSync(file, 'utf8')
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const fromSrc = new Set()
  const inProcessPay = new Set()
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !st.importClause) continue
    const spec = st.moduleSpecifier.text
    const names = []
    if (st.importClause.name) names.push(st.importClause.name.text)
    const nb = st.importClause.namedBindings
    if (nb && ts.isNamedImports(nb)) for (const el of nb.elements) if (!el.isTypeOnly) names.push(el.name.text)
    if (nb && ts.isNamespaceImport(nb)) names.push(nb.name.text)
    if (/(^|\/)src\//.test(spec)) names.forEach((n) => fromSrc.add(n))
    if (/helpers\/in-process\.js$/.test(spec) && names.includes('pay')) inProcessPay.add('pay')
  }
  // local functions: name -> body node
  const locals = new Map()
  const visitDecl = (n) => {
    if (ts.isFunctionDeclaration(n) && n.name && n.body) locals.set(n.name.text, n.body)
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer && (ts.isArrowFunction(n.initializer) || ts.isFunctionExpression(n.initializer))) locals.set(n.name.text, n.initializer.body)
    ts.forEachChild(n, visitDecl)
  }
  visitDecl(sf)
  const insideLocal = (n) => {
    for (let p = n.parent; p; p = p.parent) for (const body of locals.values()) if (p === body) return true
    return false
  }
  // direct class of a call, ignoring local functions
  const direct = (call) => {
    const {name, object} = calleeName(call)
    if (!name) return undefined
    if (SPAWN_HELPERS.has(name)) return 'spawn'
    if (SPAWN_FUNCS.has(name) && mentionsBin(call)) return 'spawn'
    if (ts.isNewExpression(call) && name === 'StdioClientTransport' && mentionsBin(call)) return 'spawn'
    if (object && name === 'pay') return 'spawn' // the resource-command harness: h.pay runs the built CLI
    if (object && (name === 'run' || name === 'command') && ts.isIdentifier(object) && object.text === 'h') return 'in-process'
    if (!object && inProcessPay.has(name)) {
      const a = call.arguments[0]
      // test/helpers/in-process.ts: PROCESS_ONLY commands as the built CLI, every other in-process
      if (a && ts.isArrayLiteralExpression(a) && a.elements.length > 0 && ts.isStringLiteral(a.elements[0])) {
        const words = a.elements.slice(0, 2).map((e) => (ts.isStringLiteral(e) ? e.text : '')).join(' ')
        const stdin = call.arguments[1] && ts.isObjectLiteralExpression(call.arguments[1]) && call.arguments[1].properties.some((p) => p.name?.getText() === 'input')
        return stdin || PROCESS_ONLY.some((c) => words === c || words.startsWith(c + ' ') || words === c.split(' ')[0]) ? 'spawn' : 'in-process'
      }
      return 'spawn'
    }
    if (INPROC_HELPERS.has(name)) return 'in-process'
    if (!object && fromSrc.has(name)) return 'in-process'
    if (object && ts.isIdentifier(object) && fromSrc.has(object.text)) return 'in-process'
    return undefined
  }
  // classify local functions to a fixed point (a local that spawns anywhere is a spawner)
  const localClass = new Map()
  for (let changed = true; changed; ) {
    changed = false
    for (const [name, body] of locals) {
      let cls
      const visit = (n) => {
        if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
          const {name: callee, object} = calleeName(n)
          const c = direct(n) ?? (!object && callee && callee !== name ? localClass.get(callee) : undefined)
          if (c === 'spawn') cls = 'spawn'
          else if (c === 'in-process' && !cls) cls = 'in-process'
        }
        ts.forEachChild(n, visit)
      }
      visit(body)
      if (cls && localClass.get(name) !== cls) {
        localClass.set(name, cls)
        changed = true
      }
    }
  }
  const classOf = (call) => {
    const {name, object} = calleeName(call)
    return direct(call) ?? (!object && name ? localClass.get(name) : undefined)
  }
  // a command run in-process: the in-process runners, or a run function (run…) imported from src/
  const isCommandRun = (call) => {
    const {name, object} = calleeName(call)
    if (!name) return false
    if (INPROC_HELPERS.has(name) || (object && (name === 'run' || name === 'command') && ts.isIdentifier(object) && object.text === 'h')) return true
    if (!object && inProcessPay.has(name)) return direct(call) === 'in-process'
    return !object && fromSrc.has(name) && /^run[A-Z]/.test(name)
  }
  const localRuns = new Set()
  for (const [name, body] of locals) {
    const v = (n) => {
      if ((ts.isCallExpression(n) || ts.isNewExpression(n)) && (isCommandRun(n) || (calleeName(n).name !== name && localRuns.has(calleeName(n).name)))) localRuns.add(name)
      ts.forEachChild(n, v)
    }
    v(body)
  }
  let spawn = 0
  let inProcess = 0
  let runs = 0
  const visitCalls = (n) => {
    if ((ts.isCallExpression(n) || ts.isNewExpression(n)) && !insideLocal(n)) {
      const c = classOf(n)
      if (c === 'spawn') spawn++
      else if (c === 'in-process') {
        inProcess++
        const {name, object} = calleeName(n)
        if (isCommandRun(n) || (!object && localRuns.has(name))) runs++
      }
    }
    ts.forEachChild(n, visitCalls)
  }
  visitCalls(sf)
  // test cases: it/test(…) calls (it.each counts once); a case spawns when its body, or a before hook of an
  // enclosing describe (or the file), spawns
  const spawnsIn = (node) => {
    let found = false
    const v = (n) => {
      if (found) return
      if ((ts.isCallExpression(n) || ts.isNewExpression(n)) && classOf(n) === 'spawn') found = true
      else ts.forEachChild(n, v)
    }
    v(node)
    return found
  }
  const isCall = (n, names) => {
    if (!ts.isCallExpression(n)) return false
    let e = n.expression
    while (ts.isCallExpression(e)) e = e.expression // it.each([...])('name', fn)
    while (ts.isPropertyAccessExpression(e)) e = e.expression
    return ts.isIdentifier(e) && names.includes(e.text)
  }
  let cases = 0
  let spawningCases = 0
  const walkScope = (node, inheritedSpawn) => {
    const hooks = []
    const children = []
    const collect = (n) => {
      if (isCall(n, ['beforeAll', 'beforeEach'])) hooks.push(n)
      else if (isCall(n, ['describe', 'it', 'test'])) children.push(n)
      else ts.forEachChild(n, collect)
    }
    ts.forEachChild(node, collect)
    const scopeSpawn = inheritedSpawn || hooks.some(spawnsIn)
    for (const c of children) {
      if (isCall(c, ['describe'])) walkScope(c, scopeSpawn)
      else {
        cases++
        if (scopeSpawn || spawnsIn(c)) spawningCases++
      }
    }
  }
  walkScope(sf, false)
  return {spawn, inProcess, runs, cases, spawningCases}
}

const rows = walk(join(ROOT, 'test')).sort().map((f) => ({file: relative(ROOT, f), ...analyse(f)}))
const sum = (k) => rows.reduce((a, r) => a + r[k], 0)
const pct = (a, b) => (b ? ((100 * a) / b).toFixed(1) + '%' : '-')
if (process.argv.includes('--files')) {
  for (const r of rows) if (r.spawn || r.inProcess) console.log(`${r.file.padEnd(52)} spawn ${String(r.spawn).padStart(3)}  in-process ${String(r.inProcess).padStart(3)} (runs ${String(r.runs).padStart(3)})  cases ${r.spawningCases}/${r.cases} spawn`)
}
const [s, i, r, c, sc] = [sum('spawn'), sum('inProcess'), sum('runs'), sum('cases'), sum('spawningCases')]
console.log(`command runs that start the built CLI: ${s} of ${s + r} (${pct(s, s + r)}); in-process command runs: ${r}`)
console.log(`call sites that start the built CLI: ${s} of ${s + i} call sites into pay (${pct(s, s + i)}); in-process: ${i}`)
console.log(`test cases that start the built CLI: ${sc} of ${c} (${pct(sc, c)})`)
