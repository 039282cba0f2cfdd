// jq-web's module.exports is a promise; vitest's interop proxy of a CommonJS module answers `then` from it, so
// `await import('jq-web')` breaks under vitest only (Node's own import gives {default: promise}). This ESM face,
// aliased in vitest.config.ts, gives tests what Node gives the CLI.
import {createRequire} from 'node:module'

export default createRequire(import.meta.url)('jq-web')
