// The one file of undici that src/client/transport.ts's loadUndiciPool imports by its path (the package only types its index).
declare module 'undici/lib/dispatcher/pool.js' {
  const Pool: typeof import('undici').Pool
  export default Pool
}
