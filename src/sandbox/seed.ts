/**
 * The deterministic seed of the sandbox: two merchants (isolation), products, Testing mode, API clients,
 * banks, mobile providers, plans, customers with collections and funded wallets. `--seed-file` replaces it
 * with a JSON document of the same shape (validated by `seedSchema`, src/sandbox/seed-schema.ts).
 * The default seed is complete (every default filled in), so it needs no zod at start-up.
 */
import type {Products, Seed} from './seed-schema.js'

export type {Products, Seed, SeedData, SeedMerchant} from './seed-schema.js'

/** Testing-mode caps (ASSUMPTION: the spec gives no values; documented in docs/sandbox.md). */
export const DEFAULT_TESTING_CAPS: Record<string, string> = {KES: '1000.00', UGX: '35000.00', TZS: '25000.00', NGN: '15000.00', GHS: '100.00'}

export const ACME = {
  merchantId: 1001,
  clientId: 'sb_acme_client',
  clientSecret: 'sb_acme_secret_4f8a2c1e9b7d',
  webhookSecret: 'whsec_sb_acme_1c9e7a5b3d',
  accountRef: 'acme-main',
  disabledClientId: 'sb_acme_disabled_client',
  /** A second enabled client of the same merchant (say, the back office): events go to the client that created the resource. */
  opsClientId: 'sb_acme_ops_client',
  opsClientSecret: 'sb_acme_ops_secret_6b3e9d2a7c1f',
  opsWebhookSecret: 'whsec_sb_acme_ops_5a7c9e1b3d',
} as const

export const GLOBEX = {
  merchantId: 1002,
  clientId: 'sb_globex_client',
  clientSecret: 'sb_globex_secret_7d2b9e4a1c6f',
  webhookSecret: 'whsec_sb_globex_8e2f6a4c0b',
  accountRefs: ['globex-east', 'globex-west'],
} as const

export function defaultSeed(): Seed {
  return {
    banks: [
      {bank_code: '01', bank_name: 'KCB Bank'},
      {bank_code: '03', bank_name: 'Absa Bank Kenya'},
      {bank_code: '11', bank_name: 'Co-operative Bank'},
      {bank_code: '31', bank_name: 'Stanbic Bank'},
      {bank_code: '68', bank_name: 'Equity Bank'},
    ],
    mobile_providers: ['mpesa', 'airtel', 'mtn'],
    testing_caps: {...DEFAULT_TESTING_CAPS},
    merchants: [
      {
        id: ACME.merchantId,
        key: 'acme',
        name: 'Acme Stores Ltd',
        testing: false,
        products: {subscriptions: true, static_va: true, bank_transfer: true, card_checkout: true, sub_accounts: false},
        accounts: [{id: 'MAC_ACME000000000000001', account_ref: ACME.accountRef, name: 'Acme Stores'}],
        clients: [
          {client_id: ACME.clientId, client_secret: ACME.clientSecret, webhook_secret: ACME.webhookSecret, enabled: true, webhook_url: null},
          {client_id: ACME.opsClientId, client_secret: ACME.opsClientSecret, webhook_secret: ACME.opsWebhookSecret, enabled: true, webhook_url: null},
          {client_id: ACME.disabledClientId, client_secret: 'sb_acme_disabled_secret', webhook_secret: 'whsec_sb_acme_disabled', enabled: false, webhook_url: null},
        ],
        wallets: [
          {currency: 'KES', collection_wallet: '250000.00', collection_wallet_held: '0.00', payout_wallet: '100000.00'},
          {currency: 'UGX', collection_wallet: '1500000.00', collection_wallet_held: '0.00', payout_wallet: '500000.00'},
        ],
        plans: [
          {plan_id: 'PLN_ACMEGOLD', plan_name: 'Gold (monthly)', amount: '1500.00', currency: 'KES', frequency: 'MONTHLY', active: true},
          {plan_id: 'PLN_ACMESILVER', plan_name: 'Silver (weekly)', amount: '400.00', currency: 'KES', frequency: 'WEEKLY', active: true},
          {plan_id: 'PLN_ACMELEGACY', plan_name: 'Legacy (retired)', amount: '999.00', currency: 'KES', frequency: 'MONTHLY', active: false},
        ],
        customers: [
          {id: 'MC_ACME0001', merchant_reference: 'cust-jane', name: 'Jane Wanjiku', email: 'jane@example.com', mobile: '254712345678', provider: 'mpesa', created_at: '2026-01-05T09:00:00+00:00', collections: {count: 47, amount: '250.00', currency: 'KES'}},
          {id: 'MC_ACME0002', merchant_reference: 'cust-otieno', name: 'Otieno Odhiambo', email: 'otieno@example.com', mobile: '254733111222', provider: 'airtel', created_at: '2026-02-10T12:30:00+00:00', collections: {count: 3, amount: '1200.00', currency: 'KES'}},
          {id: 'MC_ACME0003', merchant_reference: 'cust-amina', name: 'Amina Hassan', email: 'amina@example.com', mobile: '254700555666', provider: 'mpesa', created_at: '2026-03-01T08:15:00+00:00'},
        ],
      },
      {
        id: GLOBEX.merchantId,
        key: 'globex',
        name: 'Globex Kenya',
        testing: true,
        products: {subscriptions: false, static_va: true, bank_transfer: true, card_checkout: false, sub_accounts: true},
        accounts: [
          {id: 'MAC_GLOBEX0000000000001', account_ref: GLOBEX.accountRefs[0], name: 'Globex East'},
          {id: 'MAC_GLOBEX0000000000002', account_ref: GLOBEX.accountRefs[1], name: 'Globex West'},
        ],
        clients: [{client_id: GLOBEX.clientId, client_secret: GLOBEX.clientSecret, webhook_secret: GLOBEX.webhookSecret, enabled: true, webhook_url: null}],
        wallets: [{currency: 'KES', collection_wallet: '5000.00', collection_wallet_held: '0.00', payout_wallet: '2000.00'}],
        plans: [{plan_id: 'PLN_GLOBEXBASIC', plan_name: 'Basic', amount: '100.00', currency: 'KES', frequency: 'MONTHLY', active: true}],
        customers: [
          {id: 'MC_GLOBEX0001', merchant_reference: 'gx-cust-1', name: 'Peter Kamau', email: 'peter@example.com', mobile: '254722000111', provider: 'mpesa', account_ref: GLOBEX.accountRefs[0], created_at: '2026-04-01T10:00:00+00:00', collections: {count: 2, amount: '300.00', currency: 'KES'}},
        ],
      },
    ],
  }
}

/** Credentials of the seeded API clients, as `Sandbox.seed` exposes them. */
export interface SeedCredentials {
  /** The first merchant's first enabled API client (the one `pay sandbox start` saves as profile "sandbox"). */
  client_id: string
  client_secret: string
  webhook_secret: string
  account_ref: string
  merchants: {
    id: number
    key: string
    name: string
    testing: boolean
    products: Products
    sub_accounts_enabled: boolean
    account_refs: string[]
    /** The first enabled API client of the merchant (convenience). */
    client_id: string
    client_secret: string
    webhook_secret: string
    clients: {client_id: string; client_secret: string; webhook_secret: string; enabled: boolean}[]
  }[]
}

export function credentialsOf(seed: Seed): SeedCredentials {
  const first = seed.merchants[0]
  const primary = first.clients.find((c) => c.enabled) ?? first.clients[0]
  return {
    client_id: primary.client_id,
    client_secret: primary.client_secret,
    webhook_secret: primary.webhook_secret,
    account_ref: first.accounts[0].account_ref,
    merchants: seed.merchants.map((m) => ({
      id: m.id,
      key: m.key,
      name: m.name,
      testing: m.testing,
      products: m.products,
      sub_accounts_enabled: m.products.sub_accounts,
      account_refs: m.accounts.map((a) => a.account_ref),
      client_id: (m.clients.find((c) => c.enabled) ?? m.clients[0]).client_id,
      client_secret: (m.clients.find((c) => c.enabled) ?? m.clients[0]).client_secret,
      webhook_secret: (m.clients.find((c) => c.enabled) ?? m.clients[0]).webhook_secret,
      clients: m.clients.map((c) => ({client_id: c.client_id, client_secret: c.client_secret, webhook_secret: c.webhook_secret, enabled: c.enabled})),
    })),
  }
}
