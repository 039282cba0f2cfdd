// The build's one change to third-party code (scripts/bundle.mjs applies it to dist/vendor/oclif.cjs), kept because
// it earns its place: docs/performance.md, Kept tricks. @oclif/core is pinned to one exact version in package.json,
// and a target that is not found fails the build (and test/scripts/oclif-patches.test.ts), so an upgrade cannot ship
// silently unpatched. PAY_BUNDLE_SKIP=sortWithoutIcu builds without it, to measure it again.

/** oclif's sort of the manifest's commands (Plugin.load), as @oclif/core 4.14.0 writes it. */
export const OCLIF_SORT = '.sort((a, b) => a.id.localeCompare(b.id))'

/** Whether the locale's collation orders ids of a-z, '-' and ':' as their code units (English, C, POSIX). */
const ENGLISH = "['LC_ALL', 'LC_COLLATE', 'LC_MESSAGES', 'LANG'].every((k) => !process.env[k] || /^(C|POSIX|en)([._@-]|$)/.test(process.env[k]))"
const PLAIN = '/^[a-z:-]*$/'
/** The comparison put in its place (exported for the test that holds it to localeCompare). */
export const PLAIN_COMPARE = `(a, b) => ${PLAIN}.test(a.id) && ${PLAIN}.test(b.id) ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.id.localeCompare(b.id)`

/**
 * Why: the first localeCompare of a process sets up ICU's collator, ~6 ms of CPU of every command that goes through
 * oclif. In English and the C/POSIX locale (no tailorings), ICU orders ids made of a-z, '-' and ':' as their code
 * units (punctuation before letters, '-' before ':'), so those are compared directly; any other id or locale (Czech
 * sorts "ch" after "h", Danish "aa" last) still goes to localeCompare. Returns the patched text of oclif's bundle;
 * throws when oclif's sort is not found exactly once.
 */
export function sortWithoutIcu(text) {
  if (text.split(OCLIF_SORT).length !== 2) throw new Error(`sortWithoutIcu: oclif's command sort (${OCLIF_SORT}) not found once. @oclif/core changed: check the patch against its new code (docs/performance.md, Kept tricks)`)
  return text.replace(OCLIF_SORT, `.sort(${ENGLISH} ? ${PLAIN_COMPARE} : (a, b) => a.id.localeCompare(b.id))`)
}
