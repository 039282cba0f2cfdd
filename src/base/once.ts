/** A value made on the first call and kept (a schema built on first use: src/api/schemas.ts, src/config/profile-schema.ts). */
export function once<T>(make: () => T): () => T {
  let made: T | undefined
  return () => (made ??= make())
}
