// Generated from the endpoint table and its zod schemas by src/api/operation-rules.ts: do not edit.
// test/unit/operation-spec.test.ts fails when it is stale; `npx vitest run test/unit/operation-spec.test.ts -u` rewrites it.
import type {Derived} from './operation-rules.js'

export const derived: Derived = {
  "endpoints": {
    "account.get": {
      "method": "GET",
      "path": "/v1/account",
      "query": [],
      "idempotent": false,
      "accountRef": true,
      "objectBody": false
    },
    "balance.get": {
      "method": "GET",
      "path": "/v1/balance",
      "query": [
        "currency"
      ],
      "idempotent": false,
      "accountRef": false,
      "objectBody": false
    },
    "checkout.create": {
      "method": "POST",
      "path": "/v1/checkout/sessions",
      "query": [],
      "idempotent": true,
      "accountRef": true,
      "objectBody": true
    },
    "checkout.get": {
      "method": "GET",
      "path": "/v1/checkout/sessions/{id}",
      "query": [],
      "idempotent": false,
      "accountRef": true,
      "objectBody": false
    },
    "collections.create": {
      "method": "POST",
      "path": "/v1/collections",
      "query": [],
      "idempotent": true,
      "accountRef": true,
      "objectBody": true
    },
    "collections.get": {
      "method": "GET",
      "path": "/v1/collections/{id}",
      "query": [],
      "idempotent": false,
      "accountRef": true,
      "objectBody": false
    },
    "collections.getByReference": {
      "method": "GET",
      "path": "/v1/collections",
      "query": [
        "merchant_reference"
      ],
      "idempotent": false,
      "accountRef": true,
      "objectBody": false
    },
    "customers.collections": {
      "method": "GET",
      "path": "/v1/customers/{id}/collections",
      "query": [
        "per_page",
        "page"
      ],
      "idempotent": false,
      "accountRef": true,
      "objectBody": false
    },
    "customers.createVirtualAccount": {
      "method": "POST",
      "path": "/v1/customers/{id}/virtual-account",
      "query": [],
      "idempotent": true,
      "accountRef": true,
      "objectBody": false
    },
    "customers.get": {
      "method": "GET",
      "path": "/v1/customers/{id}",
      "query": [],
      "idempotent": false,
      "accountRef": true,
      "objectBody": false
    },
    "customers.getVirtualAccount": {
      "method": "GET",
      "path": "/v1/customers/{id}/virtual-account",
      "query": [],
      "idempotent": false,
      "accountRef": true,
      "objectBody": false
    },
    "debits.create": {
      "method": "POST",
      "path": "/v1/mandates/{mandate_id}/debits",
      "query": [],
      "idempotent": true,
      "accountRef": true,
      "objectBody": true
    },
    "debits.status": {
      "method": "GET",
      "path": "/v1/mandate_debits/status",
      "query": [
        "mandate_id",
        "merchant_reference"
      ],
      "idempotent": false,
      "accountRef": true,
      "objectBody": false
    },
    "mandates.cancel": {
      "method": "POST",
      "path": "/v1/mandates/{mandate_id}/cancel",
      "query": [],
      "idempotent": true,
      "accountRef": true,
      "objectBody": true
    },
    "mandates.create": {
      "method": "POST",
      "path": "/v1/mandates",
      "query": [],
      "idempotent": true,
      "accountRef": true,
      "objectBody": true
    },
    "mandates.get": {
      "method": "GET",
      "path": "/v1/mandates",
      "query": [
        "merchant_reference"
      ],
      "idempotent": false,
      "accountRef": true,
      "objectBody": false
    },
    "merchantVirtualAccount.create": {
      "method": "POST",
      "path": "/v1/virtual-accounts/merchant",
      "query": [],
      "idempotent": true,
      "accountRef": true,
      "objectBody": false
    },
    "merchantVirtualAccount.get": {
      "method": "GET",
      "path": "/v1/virtual-accounts/merchant",
      "query": [],
      "idempotent": false,
      "accountRef": true,
      "objectBody": false
    },
    "metadata.banks": {
      "method": "GET",
      "path": "/v1/metadata/banks",
      "query": [],
      "idempotent": false,
      "accountRef": false,
      "objectBody": false
    },
    "metadata.providers": {
      "method": "GET",
      "path": "/v1/metadata/mobile_providers",
      "query": [],
      "idempotent": false,
      "accountRef": false,
      "objectBody": false
    },
    "payouts.create": {
      "method": "POST",
      "path": "/v1/payouts",
      "query": [],
      "idempotent": true,
      "accountRef": true,
      "objectBody": true
    },
    "payouts.get": {
      "method": "GET",
      "path": "/v1/payouts/{merchant_reference}",
      "query": [],
      "idempotent": false,
      "accountRef": true,
      "objectBody": false
    },
    "plans.list": {
      "method": "GET",
      "path": "/v1/subscription_plans",
      "query": [],
      "idempotent": false,
      "accountRef": true,
      "objectBody": false
    },
    "subscriptions.create": {
      "method": "POST",
      "path": "/v1/subscriptions",
      "query": [],
      "idempotent": true,
      "accountRef": true,
      "objectBody": true
    },
    "subscriptions.get": {
      "method": "GET",
      "path": "/v1/subscriptions",
      "query": [
        "merchant_reference"
      ],
      "idempotent": false,
      "accountRef": true,
      "objectBody": false
    },
    "transactions.verify": {
      "method": "GET",
      "path": "/v1/transactions/verify/{merchant_reference}",
      "query": [],
      "idempotent": false,
      "accountRef": true,
      "objectBody": false
    },
    "verifications.bankAccount": {
      "method": "POST",
      "path": "/v1/verifications/bank_accounts",
      "query": [],
      "idempotent": false,
      "accountRef": true,
      "objectBody": true
    },
    "verifications.msisdn": {
      "method": "POST",
      "path": "/v1/verifications/msisdn",
      "query": [],
      "idempotent": false,
      "accountRef": true,
      "objectBody": true
    }
  },
  "rules": {
    "collections:create": {
      "amount": "required; must be a positive decimal string with at most 2 decimal places, such as \"10.00\"",
      "currency": "required; must be a 3-letter upper-case currency code such as KES",
      "merchant_reference": "required; must not be empty; must be at most 255 characters",
      "payment_rail": "must be mobile_money or bank_transfer",
      "mobile": "must be 10 to 15 digits; is required when --rail is mobile_money",
      "provider": "must not be empty; must be at most 64 characters; is required when --rail is mobile_money",
      "account_name": "must be at most 255 characters; is only allowed when --rail is bank_transfer",
      "description": "must be at most 255 characters"
    },
    "collections:get": {
      "id": "required",
      "merchant_reference": "required; must not be empty; must be at most 255 characters"
    },
    "checkout:create": {
      "amount_mode": "must be fixed or open",
      "amount": "must be a positive decimal string with at most 2 decimal places, such as \"10.00\"; is required when --amount-mode is fixed; must be omitted when --amount-mode is open",
      "currency": "required; must be a 3-letter upper-case currency code such as KES",
      "merchant_reference": "required; must not be empty; must be at most 255 characters",
      "payment_rail": "must be mobile_money, card or bank_transfer",
      "mobile": "must be 10 to 15 digits; is required when --rail is mobile_money",
      "provider": "must not be empty; must be at most 64 characters",
      "success_url": "required; must be an absolute URL such as https://shop.example/ok",
      "cancel_url": "required; must be an absolute URL such as https://shop.example/ok",
      "description": "must be at most 255 characters"
    },
    "checkout:get": {
      "id": "required"
    },
    "payouts:create": {
      "amount": "required; must be a positive decimal string with at most 2 decimal places, such as \"10.00\"",
      "currency": "required; must be a 3-letter upper-case currency code such as KES",
      "merchant_reference": "required; must not be empty; must be at most 255 characters",
      "payment_rail": "must be mobile_money or bank_transfer",
      "mobile": "must be 10 to 15 digits; is required when --rail is mobile_money",
      "provider": "must not be empty; must be at most 64 characters; is required when --rail is mobile_money",
      "bank_code": "must be at most 32 characters; is required when --rail is bank_transfer",
      "account_number": "must be at most 64 characters; is required when --rail is bank_transfer",
      "account_name": "must be at most 255 characters",
      "description": "must be at most 255 characters"
    },
    "payouts:get": {
      "merchant_reference": "required"
    },
    "transactions:verify": {
      "merchant_reference": "required"
    },
    "verifications:msisdn": {
      "mobile": "required; must be 10 to 15 digits",
      "provider": "must be at most 64 characters"
    },
    "verifications:bank-account": {
      "bank_code": "required; must not be empty; must be at most 32 characters",
      "account_number": "required; must not be empty; must be at most 64 characters"
    },
    "mandates:create": {
      "mobile": "required; must be 10 to 15 digits",
      "provider": "required; must not be empty; must be at most 64 characters",
      "currency": "required; must be a 3-letter upper-case currency code such as KES",
      "amount": "required; must be a positive decimal string with at most 2 decimal places, such as \"10.00\"",
      "frequency": "required; must be DAILY, WEEKLY or MONTHLY",
      "starts_at": "required; must be an ISO 8601 date-time such as 2026-12-01T09:00:00Z",
      "merchant_reference": "required; must not be empty; must be at most 255 characters",
      "description": "must be at most 255 characters",
      "plan_id": "must not be empty",
      "customer_name": "must not be empty; is required when --plan is set",
      "customer_email": "must be an email address; is required when --plan is set",
      "notes": "must be at most 1000 characters"
    },
    "mandates:get": {
      "merchant_reference": "required; must not be empty; must be at most 255 characters"
    },
    "mandates:cancel": {
      "mandate_id": "required",
      "mobile": "required; must be 10 to 15 digits",
      "reason": "required; must not be empty"
    },
    "debits:create": {
      "mandate_id": "required",
      "amount": "required; must be a positive decimal string with at most 2 decimal places, such as \"10.00\"",
      "currency": "required; must be exactly 3 upper-case letters",
      "merchant_reference": "required; must not be empty; must be at most 255 characters",
      "provider": "required; must not be empty; must be at most 64 characters"
    },
    "debits:status": {
      "mandate_id": "required; must not be empty",
      "merchant_reference": "required; must not be empty; must be at most 255 characters"
    },
    "plans:list": {},
    "subscriptions:create": {
      "plan_id": "required; must not be empty",
      "merchant_reference": "required; must not be empty; must be at most 255 characters",
      "customer_name": "required; must not be empty",
      "customer_email": "required; must be an email address",
      "mobile": "required; must be 10 to 15 digits",
      "provider": "required; must not be empty; must be at most 64 characters",
      "notes": "must be at most 1000 characters"
    },
    "subscriptions:get": {
      "merchant_reference": "required; must not be empty; must be at most 255 characters"
    },
    "customers:get": {
      "id": "required"
    },
    "customers:collections": {
      "id": "required",
      "per_page": "must be a positive whole number; must be at most 100",
      "page": "must be a positive whole number; must be at most 1000000000"
    },
    "virtual-accounts:create": {
      "id": "required"
    },
    "virtual-accounts:get": {
      "id": "required"
    },
    "metadata:banks": {},
    "metadata:providers": {},
    "balance": {
      "currency": "must be exactly 3 upper-case letters"
    },
    "account": {}
  }
}
