/**
 * `pay mcp`: the merchant account as a Model Context Protocol server over stdio, with the official TypeScript SDK
 * (its low-level Server: the tools' input schemas are plain JSON Schema, derived in src/mcp/tools.ts). Loaded only
 * by `pay mcp` (a dynamic import of its command), so no other command loads the SDK; it is not in dist/runtime.cjs.
 *
 * Every tool call of an operation runs as its command does: runOperation with the same rules, the same client,
 * and the same journal (origin `mcp`), so a money call repeated by an agent is done at most once. Its Output is
 * in memory: the service's body becomes the structured result, messages become notes of the result (and go to
 * stderr), and stdout carries the protocol only.
 */
import {readFileSync} from 'node:fs'
import {Server} from '@modelcontextprotocol/sdk/server/index.js'
import {StdioServerTransport} from '@modelcontextprotocol/sdk/server/stdio.js'
import type {Transport} from '@modelcontextprotocol/sdk/shared/transport.js'
import {takeStdoutForProtocol} from '../output/protocol-stdout.js'
import {CallToolRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema, McpError, ErrorCode, type CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import * as rt from '../runtime.js'
import {commandLineOf, commandTool, interfaceSummary, operationTools, renamer, valuesOf, type ArgumentProblem, type ToolSpec} from './tools.js'
import {instructionsOf, policyOf, type McpPolicy} from './policy.js'
import {endedResult, errorResult, inputErrorResult, memoryOutput, structuredOf, text} from './results.js'

export interface McpOptions {
  /** The connection flags `pay mcp` was given (profile, base URL, account ref, retries, timeout). */
  flags: rt.ApiContextFlags
  /** --allow-money (or the profile's mcp_allow_money), --allow-live-money. */
  allowMoney: boolean
  allowLiveMoney: boolean
  userAgent: string
  version: string
  /** Messages for people (stderr). */
  info: (text: string) => void
  env?: NodeJS.ProcessEnv
  /** The commands served as read-only tools, for their flags and help (`pay mcp` passes its siblings: no import upward). */
  commands: {journal: LookupCommand; webhookHistory: LookupCommand}
}

type LookupCommand = Parameters<typeof commandTool>[1]

/** A lookup that is a command, not an operation: its tool, and what it answers (read on this machine). */
interface CommandLookup {
  tool: ToolSpec
  run(values: Record<string, unknown>, out: rt.Output, env?: NodeJS.ProcessEnv): Promise<Record<string, unknown>>
}

const lookups = (commands: McpOptions['commands']): CommandLookup[] => [
  {
    tool: commandTool('journal', commands.journal),
    async run(values, out, env) {
      const result = rt.queryJournal(out, {key: values.key as string | undefined, limit: values.limit as number, outcome: values.outcome as string | undefined, state: values.state as string | undefined}, env)
      if (!result.found) throw new rt.PayError(`no journaled request with key or reference "${String(values.key)}"`, 4, 'call journal without key to list the recent ones')
      return 'entry' in result ? result.entry : {entries: result.rows}
    },
  },
  {
    tool: commandTool('webhook_history', commands.webhookHistory),
    async run(values, out, env) {
      const {runWebhookHistory} = await import('../webhooks/history-commands.js')
      return {deliveries: runWebhookHistory({...values, limit: values.limit as number, env}, out)}
    },
  },
]

class PayMcp {
  readonly tools: ToolSpec[]
  private readonly lookups: CommandLookup[]

  constructor(
    private readonly options: McpOptions,
    readonly settings: rt.Settings,
    readonly policy: McpPolicy,
  ) {
    this.lookups = lookups(options.commands)
    this.tools = [...operationTools(), ...this.lookups.map((l) => l.tool)]
  }

  /** The tools listed: every read-only tool, and the money tools when the policy allows them. */
  listed(): ToolSpec[] {
    return this.tools.filter((t) => !t.money || this.policy.moneyListed)
  }

  private readonly pending = new Set<Promise<CallToolResult>>()

  /** Runs a tool call; idle() waits for every call still running (stdin ended while one was in flight). */
  call(name: string, args: unknown): Promise<CallToolResult> {
    const p = this.dispatch(name, args)
    this.pending.add(p)
    const done = () => this.pending.delete(p)
    p.then(done, done)
    return p
  }

  async idle(): Promise<void> {
    await Promise.allSettled([...this.pending])
  }

  private async dispatch(name: string, args: unknown): Promise<CallToolResult> {
    const tool = this.tools.find((t) => t.name === name)
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool named ${name}`)
    if (tool.money && !this.policy.moneyListed) {
      return errorResult({code: 'money_not_allowed', message: `${name} moves money and is not enabled: ${this.policy.why}`, sent: false}, ['Nothing was sent.'])
    }
    const {values, problems} = valuesOf(tool, args)
    if (problems.length > 0) return inputErrorResult(tool, problems)
    const lookup = this.lookups.find((l) => l.tool === tool)
    return lookup ? this.lookup(lookup, values) : this.operation(tool, values)
  }

  private async lookup(lookup: CommandLookup, values: Record<string, unknown>): Promise<CallToolResult> {
    const io = memoryOutput()
    // the flags' defaults, as oclif's parse applies them for the command
    for (const input of lookup.tool.inputs) if (values[input.name] === undefined && input.default !== undefined) values[input.name] = input.default
    try {
      const body = await lookup.run(values, io.out, this.options.env)
      return {content: [text(JSON.stringify(body))], structuredContent: body}
    } catch (err) {
      return this.failure(lookup.tool, values, err, io)
    }
  }

  private async operation(tool: ToolSpec, values: Record<string, unknown>): Promise<CallToolResult> {
    const op = tool.op!
    const io = memoryOutput()
    let replayedAt: string | undefined
    let key: string | undefined
    // sees each journaled request of this call: the key it carries, and whether the journal answered it
    const seen = (entry: rt.JournalEntryHandle): rt.JournalEntryHandle => {
      // a replay carries the key of the request that succeeded
      key = entry.replay?.request.idempotencyKey ?? entry.request.idempotencyKey
      if (entry.replay) replayedAt = entry.replay.replayedAt ?? 'earlier'
      return entry
    }
    const wrap = (gate: rt.RequestJournal): rt.RequestJournal => ({
      // the gate's begin may answer at once or with a promise (a journal that waits for another process's send)
      begin(...args: Parameters<rt.RequestJournal['begin']>): ReturnType<rt.RequestJournal['begin']> {
        const entry: unknown = gate.begin(...args)
        return (entry instanceof Promise ? entry.then(seen) : seen(entry as rt.JournalEntryHandle)) as ReturnType<rt.RequestJournal['begin']>
      },
    })
    const connection = connectionArgv(this.options.flags)
    let ctx: rt.ApiContext | undefined
    try {
      ctx = await rt.createApiContext({...this.options.flags, json: true}, this.options.userAgent, io.out, this.options.env, undefined, {origin: 'mcp', argv: [...commandLineOf(tool, values), ...connection], newRequest: 'give it a new merchant reference (pay mcp never sends a request again)', wrap})
      if (tool.money && !policyOf(ctx.settings, this.options).moneyListed) throw new rt.PayError('the settings changed since pay mcp started: money is no longer allowed', 3)
      // --allow-live-money is the person's consent for this session (a live money tool is listed only with it), as
      // --yes is on the command line: no one is asked, and nothing prompts on a terminal (the agent owns stdio)
      const code = await rt.runOperation(ctx, op, tool.money && this.options.allowLiveMoney ? {...values, yes: true} : values)
      const body = structuredOf(io.stdout())
      const notes = io.stderr().trim()
      const replayNote = replayedAt ? `Nothing was sent: the service already accepted this same call at ${replayedAt} (Idempotency-Key ${key}). This is that earlier answer; the state in it may have moved on since.` : undefined
      const _meta = {pay: {replayed: Boolean(replayedAt), ...(replayedAt ? {replayed_at: replayedAt} : {}), ...(key ? {idempotency_key: key} : {}), dry_run: values['dry-run'] === true}}
      if (code !== 0) {
        // answered, but what the command line exits non-zero on (a transaction that ended failed, a wait that timed out)
        this.options.info(`${tool.name}: exit ${code}`)
        return {...endedResult(code, body, io.errors().map(renamer(tool.inputs)), [replayNote ?? notes].filter((l): l is string => Boolean(l))), _meta}
      }
      const content = [text(JSON.stringify(body))]
      if (replayNote) content.push(text(replayNote))
      if (notes && !replayedAt) content.push(text(notes))
      return {content, structuredContent: body, _meta}
    } catch (err) {
      return this.failure(tool, values, err, io)
    } finally {
      await ctx?.client.close()
      const messages = io.stderr().trim()
      if (messages) this.options.info(`${tool.name}: ${messages}`)
    }
  }

  /** A failure as a tool error: the error envelope of the command line, in the tool's names, with how to resume. */
  private failure(tool: ToolSpec, values: Record<string, unknown>, err: unknown, io: ReturnType<typeof memoryOutput>): CallToolResult {
    const json = memoryOutput()
    json.out.forError()
    const exitCode = rt.renderError(json.out, err)
    const envelope = JSON.parse(json.stdout().trim().split('\n').pop() ?? '{}') as {error?: Record<string, unknown>; status?: number}
    const rename = renamer(tool.inputs)
    const error: Record<string, unknown> = {...envelope.error, exit_code: exitCode, ...(envelope.status !== undefined ? {status: envelope.status} : {})}
    const lines: string[] = []
    if (Array.isArray(error.problems)) {
      error.problems = (error.problems as {flag: string; rule: string}[]).map((p) => ({field: rename(p.flag), rule: rename(p.rule)}))
      error.message = (error.problems as ArgumentProblem[]).map((p) => `${p.field} ${p.rule}`).join('\n')
      error.sent = false
      // the command line's hint (pass the missing flags, see --help) speaks of flags; the schema says it for a tool
      delete error.hint
      lines.push(`Nothing was sent. See the input schema of ${tool.name}.`)
    }
    if (typeof error.hint === 'string') error.hint = rename(error.hint)
    if (typeof error.request_id === 'string') lines.push(`request_id: ${error.request_id}`)
    if (typeof error.idempotency_key === 'string') {
      // the same arguments: the journal finds the request and reuses its key (the key is no tool input, so that an
      // agent's retry can never become a second request); resume_command is the shell's way
      const again = Object.fromEntries(tool.inputs.filter((i) => values[i.name] !== undefined).map((i) => [i.property, i.type === 'object' ? JSON.parse(String(values[i.name])) : values[i.name]]))
      const reference = (values.reference ?? values['merchant-reference']) as string | undefined
      // the command line's hint names flags and a command, which renamed to the tool's names make neither
      delete error.hint
      error.outcome = 'unknown'
      error.resume = {
        tool: tool.name,
        arguments: again,
        how: `call ${tool.name} again with the same arguments: it reuses Idempotency-Key ${error.idempotency_key} from the journal, and the service does it at most once${reference ? `; or look it up with transactions_verify {"reference":${JSON.stringify(reference)}}` : ''}`,
      }
      lines.push(`The outcome is unknown (Idempotency-Key ${error.idempotency_key}): ${(error.resume as {how: string}).how}.`)
    } else if (typeof error.hint === 'string') lines.push(`next: ${error.hint}`)
    const notes = io.stderr().trim()
    if (notes) lines.push(notes)
    return errorResult(error, lines)
  }
}

/** `pay mcp`'s own connection flags, for the command line a journaled call resumes with. */
function connectionArgv(flags: rt.ApiContextFlags): string[] {
  const argv: string[] = []
  if (flags.profile) argv.push('--profile', flags.profile)
  if (flags['base-url']) argv.push('--base-url', flags['base-url'])
  if (flags['account-ref']) argv.push('--account-ref', flags['account-ref'])
  return argv
}

const RESOURCES = [
  {uri: 'pay://interface', name: 'interface', title: 'The Payments Service as pay uses it', description: 'Every tool: its endpoint, whether it moves money, and each input with its rule', mimeType: 'text/markdown'},
  {uri: 'pay://docs/assumptions.md', name: 'assumptions', title: 'What pay assumes where the interface is silent', description: 'docs/assumptions.md of pay: the choices it makes and the rules it keeps', mimeType: 'text/markdown'},
] as const

/** The text of a resource. */
function readResource(mcp: PayMcp, uri: string): string {
  if (uri === 'pay://interface') return interfaceSummary(mcp.tools)
  if (uri === 'pay://docs/assumptions.md') return readFileSync(new URL('../../docs/assumptions.md', import.meta.url), 'utf8')
  throw new McpError(ErrorCode.InvalidParams, `no resource ${uri}`)
}

/** The SDK's server over the tools and resources of `mcp`. */
function mcpServer(mcp: PayMcp, version: string): Server {
  const server = new Server({name: 'pay', title: 'pay: Payments Service merchant account', version}, {capabilities: {tools: {}, resources: {}}, instructions: instructionsOf(mcp.policy, mcp.settings)})
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: mcp.listed().map((t) => ({name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations})),
  }))
  server.setRequestHandler(CallToolRequestSchema, async (req) => mcp.call(req.params.name, req.params.arguments))
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({resources: RESOURCES.map((r) => ({...r}))}))
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const resource = RESOURCES.find((r) => r.uri === req.params.uri)
    return {contents: [{uri: req.params.uri, mimeType: resource?.mimeType ?? 'text/markdown', text: readResource(mcp, req.params.uri)}]}
  })
  return server
}

/**
 * Serves on stdin/stdout until stdin ends. stdout carries the protocol only: anything else that writes to
 * process.stdout meanwhile goes to stderr (src/output/protocol-stdout.ts).
 */
export async function serveMcp(options: McpOptions): Promise<void> {
  let protocol: ReturnType<typeof takeStdoutForProtocol> | undefined
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve)
    process.stdin.once('close', resolve)
  })
  const session = await connectMcp(options, () => {
    protocol = takeStdoutForProtocol()
    return new StdioServerTransport(process.stdin, protocol)
  })
  await ended
  await session.close()
  await new Promise<void>((resolve) => protocol!.end(resolve))
}

/**
 * The server of `pay mcp` connected to a transport (serveMcp's: stdio, made once the settings are read; a test's:
 * in memory), and its start-up line on stderr. close() waits for the calls still running, then closes it.
 */
export async function connectMcp(options: McpOptions, transport: () => Transport): Promise<{close(): Promise<void>}> {
  const settings = await rt.resolveSettings(options.flags, options.env)
  const policy = policyOf(settings, options)
  const mcp = new PayMcp(options, settings, policy)
  const server = mcpServer(mcp, options.version)
  await server.connect(transport())
  const listed = mcp.listed()
  options.info(`pay mcp: ${listed.length} tools on stdio (${policy.moneyListed ? `money tools listed${policy.live ? ', LIVE' : ''}` : `read-only: ${policy.why}`}), profile "${settings.profileName}"${settings.baseUrl ? ` at ${rt.shownBaseUrl(settings)}` : ''}`)
  return {
    async close() {
      await mcp.idle()
      await server.close()
    },
  }
}
