/**
 * What a command talks to the service with: the client, the output and the resolved settings. Made once per
 * command run by createApiContext (src/runtime.ts); tests make one in-process with their own Output (in-memory
 * streams) and transport. Defined here, beside the cli modules that take it, so that they need not import
 * src/runtime.ts (which imports them).
 */
import type {ApiClient} from '../client/api-client.js'
import type {Settings} from '../config/settings.js'
import type {Output} from '../output/output.js'

export interface ApiContext {
  client: ApiClient
  out: Output
  settings: Settings
}
