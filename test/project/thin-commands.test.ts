/**
 * Thin commands: every command class (src/commands/**, and the classes src/cli/ builds for them) only parses and
 * hands over to a run function of its room (options and Output in, result out), which its tests run in-process.
 * Read with the TypeScript parser, a class is thin when:
 *   - run() is its only method (no helper methods: they belong beside the run function; static members are
 *     declarations for oclif);
 *   - run() holds at most MAX_STATEMENTS statements, each a declaration or an expression (no if, loop, try, throw,
 *     switch or return: a decision is logic), and no function with a body of its own (an arrow that forwards, like
 *     `(id, input) => this.control(flags, id, input)`, is fine);
 *   - run() calls a function it imported lazily (`await import(…)`), or the runtime's (`rt.runOperationCommand`).
 * A new hand-written command that keeps its logic in run() trips one of these.
 */
import {readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import ts from 'typescript'
import {describe, expect, it} from 'vitest'
import {ROOT, sources} from '../helpers/source-scan.js'

const MAX_STATEMENTS = 4

/** Commands whose run() is oclif's own output, not pay's logic; each with the reason. */
const OCLIF_OWN: Record<string, string> = {
  'src/commands/help.ts': "oclif's Help class prints the help, exactly as --help does (showHelp, beside the class)",
  'src/commands/version.ts': "oclif's user agent, as `pay --version` prints it (bin/run.cjs's fast path answers it first)",
}

const COMMAND_BASES = /^(BaseCommand|ApiCommand|SandboxCommand|Command)$|^operationCommand\(/

const CONTROL_FLOW = new Set([
  ts.SyntaxKind.IfStatement,
  ts.SyntaxKind.ForStatement,
  ts.SyntaxKind.ForInStatement,
  ts.SyntaxKind.ForOfStatement,
  ts.SyntaxKind.WhileStatement,
  ts.SyntaxKind.DoStatement,
  ts.SyntaxKind.SwitchStatement,
  ts.SyntaxKind.TryStatement,
  ts.SyntaxKind.ThrowStatement,
  ts.SyntaxKind.ReturnStatement,
  ts.SyntaxKind.ConditionalExpression,
])

/** The problems of each command class in `text`: what makes it more than parse and delegate. */
export function thickness(text: string, file = 'command.ts'): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const problems: string[] = []
  const visit = (node: ts.Node) => {
    if ((ts.isClassDeclaration(node) || ts.isClassExpression(node)) && extendsCommand(node)) problems.push(...classProblems(node, sf))
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return problems
}

function extendsCommand(node: ts.ClassLikeDeclaration): boolean {
  const base = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]
  return base !== undefined && COMMAND_BASES.test(base.expression.getText())
}

function classProblems(node: ts.ClassLikeDeclaration, sf: ts.SourceFile): string[] {
  const name = node.name?.text ?? 'class'
  const line = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1
  const problems: string[] = []
  const isStatic = (m: ts.ClassElement) => ts.canHaveModifiers(m) && (ts.getModifiers(m) ?? []).some((k) => k.kind === ts.SyntaxKind.StaticKeyword)
  const methods = node.members.filter((m) => (ts.isMethodDeclaration(m) || ts.isGetAccessor(m) || ts.isSetAccessor(m)) && !isStatic(m))
  for (const m of methods) if (m.name?.getText(sf) !== 'run') problems.push(`${name}.${m.name?.getText(sf)} (line ${line(m)}): a method besides run(); move it beside the run function`)
  const run = methods.find((m): m is ts.MethodDeclaration => ts.isMethodDeclaration(m) && m.name.getText(sf) === 'run')
  if (!run?.body) return problems
  const statements = run.body.statements
  if (statements.length > MAX_STATEMENTS) problems.push(`${name}.run (line ${line(run)}): ${statements.length} statements (at most ${MAX_STATEMENTS}: parse, import, call)`)
  let delegates = false
  const walk = (n: ts.Node) => {
    if (CONTROL_FLOW.has(n.kind)) problems.push(`${name}.run line ${line(n)}: ${ts.SyntaxKind[n.kind]} (a decision is logic: it belongs in the run function)`)
    if ((ts.isArrowFunction(n) && ts.isBlock(n.body)) || ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n)) problems.push(`${name}.run line ${line(n)}: a function with a body of its own`)
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text.startsWith('run')) delegates = true
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === 'runOperationCommand') delegates = true
    ts.forEachChild(n, walk)
  }
  walk(run.body)
  if (!delegates) problems.push(`${name}.run (line ${line(run)}): calls no run function (runX(options, out, …))`)
  return problems
}

/** Every module that declares command classes: src/commands/ and the classes src/cli/ builds for commands. */
function commandModules(): string[] {
  return [...sources(join(ROOT, 'src', 'commands')), ...sources(join(ROOT, 'src', 'cli')).filter((f) => !f.endsWith('base-command.ts'))]
}

describe('thin commands', () => {
  it('every command class only parses and calls its run function', () => {
    const problems: string[] = []
    for (const file of commandModules()) {
      const name = relative(ROOT, file).split('\\').join('/')
      if (OCLIF_OWN[name]) continue
      for (const p of thickness(readFileSync(file, 'utf8'), name)) problems.push(`${name}: ${p}`)
    }
    expect(problems).toEqual([])
  })

  it('finds logic in run(), helper methods and commands that delegate to nothing', () => {
    const thin = `class A extends BaseCommand {
      static override flags = {}
      async run(): Promise<void> {
        const {flags} = await this.parse(A)
        const {runA} = await import('../a/run.js')
        process.exitCode = await runA(flags, await this.output(), {call: (id, input) => this.control(flags, id, input)})
      }
    }`
    expect(thickness(thin)).toEqual([])
    const decides = thin.replace('process.exitCode =', 'if (flags.x) throw new Error("x")\n        process.exitCode =')
    expect(thickness(decides)).toEqual([expect.stringMatching(/IfStatement/), expect.stringMatching(/ThrowStatement/)])
    expect(thickness(thin.replace('static override flags = {}', 'private async values() { return [] }'))).toEqual([expect.stringMatching(/A\.values .*a method besides run/)])
    expect(thickness(thin.replace(/runA\(/g, 'other('))).toEqual([expect.stringMatching(/calls no run function/)])
    const long = thin.replace('const {runA}', 'const a = 1\n        const b = 2\n        const {runA}')
    expect(thickness(long)).toEqual([expect.stringMatching(/5 statements/)])
    const inline = thin.replace('(id, input) => this.control(flags, id, input)', '(id) => { return id }')
    expect(thickness(inline)).toEqual([expect.stringMatching(/a function with a body/), expect.stringMatching(/ReturnStatement/)])
    expect(thickness(thin.replace('static override flags = {}', 'static get spec() { return 1 }'))).toEqual([])
    expect(thickness(thin.replace('extends BaseCommand', 'extends Object'))).toEqual([])
    expect(thickness(`const C = class extends SandboxCommand { async run() { const x = flags.y ? 1 : 2 } }`)).toEqual([expect.stringMatching(/ConditionalExpression/), expect.stringMatching(/calls no run function/)])
  })
})
