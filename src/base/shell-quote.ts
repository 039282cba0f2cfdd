/** A word for a POSIX shell: as it is when it holds nothing the shell reads specially, else in single quotes. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`
}

/** A command's positional argument: shellQuote()d, and after `--` when it begins with `-` (else read as a flag). */
export function shellArgument(s: string): string {
  return s.startsWith('-') ? `-- ${shellQuote(s)}` : shellQuote(s)
}
