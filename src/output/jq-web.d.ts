// jq-web ships no types: its module is a promise of the instantiated jq (src/output/structured.ts).
declare module 'jq-web' {
  const jq: Promise<{raw(input: string, filter: string, flags?: string[]): string}>
  export default jq
}
