/**
 * The zod schema of a seed document (`--seed-file`, `options.seed`). Loaded only when a custom seed is given,
 * so that the default start-up does not pay for it.
 */
import * as z from 'zod'
import {readFile} from 'node:fs/promises'
import {isDecimalAmount} from '../api/money.js'

const decimal = z.string().refine((v) => v === '0' || v === '0.00' || isDecimalAmount(v), 'must be a decimal string')

export const productsSchema = z.object({
  subscriptions: z.boolean(),
  static_va: z.boolean(),
  bank_transfer: z.boolean(),
  card_checkout: z.boolean(),
  sub_accounts: z.boolean(),
})
export type Products = z.infer<typeof productsSchema>

export const seedSchema = z.object({
  banks: z.array(z.object({bank_code: z.string().min(1), bank_name: z.string().min(1)})).min(1),
  mobile_providers: z.array(z.string().min(1)).min(1),
  /** Testing-mode money-in cap per currency (decimal strings). */
  testing_caps: z.record(z.string().regex(/^[A-Z]{3}$/), decimal),
  merchants: z
    .array(
      z.object({
        id: z.number().int().positive(),
        key: z.string().min(1),
        name: z.string().min(1),
        testing: z.boolean(),
        products: productsSchema,
        /** The first account is the main one; with sub_accounts on, every account is a sub-account. */
        accounts: z.array(z.object({id: z.string().startsWith('MAC_'), account_ref: z.string().min(1), name: z.string().min(1)})).min(1),
        clients: z
          .array(
            z.object({
              client_id: z.string().min(1),
              client_secret: z.string().min(1),
              webhook_secret: z.string().min(1),
              enabled: z.boolean().default(true),
              webhook_url: z.string().nullable().default(null),
            }),
          )
          .min(1),
        wallets: z.array(z.object({currency: z.string().regex(/^[A-Z]{3}$/), collection_wallet: decimal, collection_wallet_held: decimal.default('0.00'), payout_wallet: decimal})).min(1),
        plans: z
          .array(
            z.object({
              plan_id: z.string().startsWith('PLN_'),
              plan_name: z.string().min(1),
              amount: decimal,
              currency: z.string().regex(/^[A-Z]{3}$/),
              frequency: z.enum(['DAILY', 'WEEKLY', 'MONTHLY']),
              active: z.boolean(),
            }),
          )
          .default([]),
        customers: z
          .array(
            z.object({
              id: z.string().startsWith('MC_'),
              merchant_reference: z.string().min(1),
              name: z.string().min(1),
              email: z.string(),
              mobile: z.string(),
              provider: z.string().default('mpesa'),
              /** Account ref the customer belongs to; default the first account. */
              account_ref: z.string().optional(),
              created_at: z.string(),
              /** Succeeded collections generated for the customer. */
              collections: z.object({count: z.number().int().min(0), amount: decimal, currency: z.string().regex(/^[A-Z]{3}$/)}).optional(),
            }),
          )
          .default([]),
      }),
    )
    .min(1),
})
export type SeedData = z.input<typeof seedSchema>
export type Seed = z.output<typeof seedSchema>
export type SeedMerchant = Seed['merchants'][number]

export async function loadSeedFile(path: string): Promise<SeedData> {
  const raw: unknown = JSON.parse(await readFile(path, 'utf8'))
  const parsed = seedSchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(`${path}: invalid seed at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`)
  }
  return parsed.data
}
