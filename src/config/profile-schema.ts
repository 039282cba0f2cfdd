/** The shape of a stored profile and of the profiles file (checked on every read: by its stored plan, else by zod). */
import * as z from 'zod'
import {once} from '../base/once.js'

/** Profile fields that are secrets: never printed, never logged; kept in the OS keyring where there is one. */
export const SECRET_FIELDS = ['client_secret', 'webhook_secret'] as const
export type SecretField = (typeof SECRET_FIELDS)[number]

/**
 * Built on first use: a command reads the profiles file by its stored plan (src/config/profile-plans.generated.ts)
 * and builds these only when that plan is not sure of it, or to write.
 */
export const profileSchema = once(() =>
  z.object({
    base_url: z.url().optional(),
    client_id: z.string().min(1).optional(),
    client_secret: z.string().min(1).optional(),
    account_ref: z.string().min(1).optional(),
    webhook_secret: z.string().min(1).optional(),
    /** The webhook signature scheme, pinned once the service's is known (`inline-hex-sha256`, …; src/webhooks/signature.ts). */
    webhook_signature: z.string().min(1).optional(),
    /** The live service: money-moving commands ask first on a terminal (src/operation/confirm.ts). */
    live: z.boolean().optional(),
    /** `pay mcp` lists its money tools without --allow-money (a live service still needs --allow-live-money). */
    mcp_allow_money: z.boolean().optional(),
    /**
     * Secrets kept in the OS keyring (src/config/secret-store.ts) instead of above: the entries' id, which fields are
     * there, and the SHA-256 of the client secret (the token cache's key, so a cached token needs no keyring).
     */
    keyring: z
      .object({
        id: z.string().regex(/^[0-9a-f-]{36}$/),
        fields: z.array(z.enum(SECRET_FIELDS)),
        client_secret_sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
      })
      .optional(),
  })
)
export type Profile = z.infer<ReturnType<typeof profileSchema>>

export const profilesFileSchema = once(() =>
  z.object({
    active: z.string().optional(),
    profiles: z.record(z.string(), profileSchema()).default({}),
  })
)
export type ProfilesFile = z.infer<ReturnType<typeof profilesFileSchema>>

export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/
export const DEFAULT_PROFILE = 'default'
/** The profile `pay sandbox start` saves the local sandbox's URL and seed credentials in. */
export const SANDBOX_PROFILE = 'sandbox'

