/** The shape of a stored profile and of the profiles file (validated with zod on every read). */
import * as z from 'zod'

export const profileSchema = z.object({
  base_url: z.url().optional(),
  client_id: z.string().min(1).optional(),
  client_secret: z.string().min(1).optional(),
  account_ref: z.string().min(1).optional(),
  webhook_secret: z.string().min(1).optional(),
  /** The webhook signature scheme, pinned once the service's is known (`inline-hex-sha256`, …; src/webhooks/signature.ts). */
  webhook_signature: z.string().min(1).optional(),
  /** The live service: money-moving commands ask first on a terminal (src/cli/confirm.ts). */
  live: z.boolean().optional(),
  /** `pay mcp` lists its money tools without --allow-money (a live service still needs --allow-live-money). */
  mcp_allow_money: z.boolean().optional(),
})
export type Profile = z.infer<typeof profileSchema>

export const profilesFileSchema = z.object({
  active: z.string().optional(),
  profiles: z.record(z.string(), profileSchema).default({}),
})
export type ProfilesFile = z.infer<typeof profilesFileSchema>

export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/
export const DEFAULT_PROFILE = 'default'
/** Profile fields that are secrets: never printed, never logged. */
export const SECRET_FIELDS = ['client_secret', 'webhook_secret'] as const
