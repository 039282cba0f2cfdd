/** A word for a POSIX shell: as it is when it holds nothing the shell reads specially, else in single quotes. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`
}
