// Generated from zod schemas by src/api/sure-match.ts (planOf, exact): do not edit.
// test/config/profile-schema.test.ts fails when it is stale; `npx vitest run test/config/profile-schema.test.ts -u` rewrites it.

/** Each schema's exact plan (src/api/sure-match.ts, Plan) as JSON text. */
export const exactPlans: Record<string, string> = {
  "profilesFile": "{\"object\":[[\"active\",{\"optional\":{\"string\":[]}},true],[\"profiles\",{\"record\":{\"object\":[[\"base_url\",{\"optional\":{\"string\":[{\"url\":true}]}},true],[\"client_id\",{\"optional\":{\"string\":[{\"min\":1}]}},true],[\"client_secret\",{\"optional\":{\"string\":[{\"min\":1}]}},true],[\"account_ref\",{\"optional\":{\"string\":[{\"min\":1}]}},true],[\"webhook_secret\",{\"optional\":{\"string\":[{\"min\":1}]}},true],[\"webhook_signature\",{\"optional\":{\"string\":[{\"min\":1}]}},true],[\"live\",{\"optional\":{\"boolean\":true}},true],[\"mcp_allow_money\",{\"optional\":{\"boolean\":true}},true],[\"keyring\",{\"optional\":{\"object\":[[\"id\",{\"string\":[{\"pattern\":\"^[0-9a-f-]{36}$\",\"flags\":\"\"}]},false],[\"fields\",{\"array\":{\"literal\":[\"client_secret\",\"webhook_secret\"]}},false],[\"client_secret_sha256\",{\"optional\":{\"string\":[{\"pattern\":\"^[0-9a-f]{64}$\",\"flags\":\"\"}]}},true]],\"exact\":true}},true]],\"exact\":true}},false]],\"exact\":true}",
}
