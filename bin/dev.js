#!/usr/bin/env -S node --import tsx
// Runs the TypeScript sources directly (no build step, no fast paths), for development.
// Help is rendered at the same fixed width as bin/run.js gives it.
if (!process.env.OCLIF_COLUMNS) globalThis.oclif = {...globalThis.oclif, columns: 80}
const {execute} = await import('@oclif/core')

await execute({development: true, dir: import.meta.url})
