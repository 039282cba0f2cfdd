/** The User-Agent every request carries; the base command and bin/run.cjs's direct path both name it with this. */
export function userAgentOf(version: string): string {
  return `pay/${version} node/${process.version} (${process.platform}-${process.arch})`
}
