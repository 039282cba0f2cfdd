/**
 * Shell completion: what to offer after the words typed so far, from the command surface (src/cli/surface.ts).
 * The shells' scripts (`pay completion bash|zsh|fish`) are thin: they pass the words to `pay completion complete`
 * and show what it prints, so the logic is one, and tested in-process. Values of --provider, --bank-code, --plan
 * and --profile come from a local cache (src/cli/completion-cache.ts), never a request per keystroke.
 */
import type {Output} from '../output/output.js'
import type {CommandSurface, FlagSurface, ValueSource} from './surface.js'

export type Shell = 'bash' | 'zsh' | 'fish'
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish']

/** What to complete: fixed words, or the values of a list (looked up by the caller). */
export type Completion = {words: string[]} | {source: ValueSource; prefix: string}

function flagOf(cmd: CommandSurface | undefined, word: string): FlagSurface | undefined {
  if (!cmd) return undefined
  if (word.startsWith('--')) return cmd.flags.find((f) => f.name === word.slice(2).split('=')[0])
  if (/^-[A-Za-z]$/.test(word)) return cmd.flags.find((f) => f.char === word.slice(1))
  return undefined
}

/**
 * `typed` is every word after `pay`, the last being the one under the cursor (possibly empty).
 */
export function complete(surface: readonly CommandSurface[], typed: readonly string[]): Completion {
  const words = typed.length === 0 ? [''] : typed
  const current = words.at(-1)!
  const before = words.slice(0, -1)
  const ids = new Set(surface.map((c) => c.id))
  for (const c of surface) for (const a of c.aliases) ids.add(a)
  // the command: the longest run of leading words that is a command or a topic of one
  let id = ''
  let i = 0
  for (; i < before.length; i++) {
    const next = id ? `${id}:${before[i]}` : before[i]
    if (before[i].startsWith('-') || ![...ids].some((x) => x === next || x.startsWith(`${next}:`))) break
    id = next
  }
  const cmd = surface.find((c) => c.id === id || c.aliases.includes(id))
  const prev = before.at(-1)
  const prevFlag = prev !== undefined && i < before.length ? flagOf(cmd, prev) : undefined
  if (prevFlag && prevFlag.type !== 'boolean' && !prev!.includes('=')) {
    if (prevFlag.choices) return {words: prevFlag.choices.filter((c) => c.startsWith(current))}
    if (prevFlag.values) return {source: prevFlag.values, prefix: current}
    return {words: []}
  }
  if (current.startsWith('-')) {
    if (!cmd) return {words: ['--help', '--version'].filter((w) => w.startsWith(current))}
    const given = new Set(before.map((w) => flagOf(cmd, w)?.name).filter(Boolean))
    const names = cmd.flags.filter((f) => f.multiple || !given.has(f.name)).map((f) => `--${f.name}`)
    return {words: [...names, '--help'].filter((w) => w.startsWith(current)).sort()}
  }
  if (i < before.length || (cmd && ![...ids].some((x) => x.startsWith(`${id}:`)))) {
    // past the command's words: an argument; its choices when the command declares them (webhook trigger TYPE)
    let position = 0
    for (let j = i; j < before.length; j++) {
      const flag = flagOf(cmd, before[j])
      if (flag && flag.type !== 'boolean' && !before[j].includes('=')) j++ // the flag's value
      else if (!before[j].startsWith('-')) position++
    }
    return {words: cmd?.args[position]?.choices?.filter((c) => c.startsWith(current)) ?? []}
  }
  const next = new Set<string>()
  for (const x of ids) {
    if (id && !x.startsWith(`${id}:`)) continue
    const rest = id ? x.slice(id.length + 1) : x
    next.add(rest.split(':')[0])
  }
  return {words: [...next].filter((w) => w !== '' && w.startsWith(current)).sort()}
}

/**
 * Only words a shell can take as they are: printable, no white space, no quote, `$`, backquote, `;`, `&`, `|`,
 * redirection, glob or history character (the scripts hand candidates to `COMPREPLY` and zsh's `compadd -Q`
 * unquoted), at most 128 characters. Values from the service or from a file (providers, banks, plans, profile
 * names) that are not such words are not offered.
 */
const SHELL_WORD = /^[A-Za-z0-9_.,:@%+=/-]{1,128}$/
export function shellSafe(values: readonly string[]): string[] {
  return values.filter((v) => SHELL_WORD.test(v))
}

/** The profile named among the typed words (--profile X, -p X, --profile=X), for the list values. */
export function profileOf(typed: readonly string[]): string | undefined {
  for (let i = 0; i < typed.length - 1; i++) {
    if (typed[i] === '--profile' || typed[i] === '-p') return typed[i + 1] || undefined
    if (typed[i].startsWith('--profile=')) return typed[i].slice('--profile='.length) || undefined
  }
  return undefined
}

/** The script a shell sources: it hands the words to `pay completion complete` and offers what comes back. */
function completionScript(shell: Shell, bin = 'pay'): string {
  if (shell === 'bash') {
    return `# ${bin} completion for bash. Load it now:  source <(${bin} completion bash)
# or for good:  ${bin} completion bash > ~/.local/share/bash-completion/completions/${bin}
_${bin}_completion() {
  local IFS=$'\\n'
  COMPREPLY=($(${bin} completion complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _${bin}_completion ${bin}
`
  }
  if (shell === 'zsh') {
    return `#compdef ${bin}
# ${bin} completion for zsh. Load it now:  source <(${bin} completion zsh)
# or for good: save it as _${bin} in a directory of $fpath (before compinit runs).
_${bin}() {
  local -a candidates
  candidates=("\${(@f)$(${bin} completion complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  candidates=(\${candidates:#})
  if (( \${#candidates} )); then
    compadd -Q -- "\${candidates[@]}"
  else
    _files
  fi
}
if (( \${+functions[compdef]} )); then compdef _${bin} ${bin}; fi
`
  }
  return `# ${bin} completion for fish. Load it now:  ${bin} completion fish | source
# or for good:  ${bin} completion fish > ~/.config/fish/completions/${bin}.fish
complete -c ${bin} -f -a '(${bin} completion complete -- (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'
`
}

/** `pay completion SHELL`: the script, as one chunk of stdout. */
export function runCompletion(shell: Shell, out: Output, bin = 'pay'): string {
  const script = completionScript(shell, bin)
  out.chunk(script)
  return script
}
