/**
 * Where a profile's secrets (client secret, webhook secret) live: the OS keyring (macOS Keychain, Windows
 * Credential Manager, the Secret Service on Linux, through @napi-rs/keyring's prebuilt binaries) or, where there is
 * none, the 0600 profiles file as before. PAY_SECRET_STORE=file|keyring forces one; unset (auto) tries the keyring
 * and falls back to the file with one notice. The profile file then holds only a reference (`keyring`: the entry's
 * account and, for the token cache, the SHA-256 of the client secret), never the secret.
 *
 * The binding is loaded only here, on first use: when a profile is saved, and when a command needs a secret the
 * token cache cannot stand in for (a token request, a webhook signature). Nothing on a command's start-up path
 * imports this module statically.
 */
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {SECRET_FIELDS, type SecretField} from './profile-schema.js'

/** The keyring service name every entry of pay is filed under; an entry's account is `<profile's id>:<field>`. */
const KEYRING_SERVICE = 'pay-cli'

type SecretStoreChoice = 'auto' | 'file' | 'keyring'

/** PAY_SECRET_STORE: file, keyring, or unset/auto. */
export function secretStoreChoice(env: NodeJS.ProcessEnv = process.env): SecretStoreChoice {
  const value = (env.PAY_SECRET_STORE ?? '').trim().toLowerCase()
  if (value === '' || value === 'auto') return 'auto'
  if (value === 'file' || value === 'keyring') return value
  throw new PayError(`PAY_SECRET_STORE must be file, keyring or auto, not "${env.PAY_SECRET_STORE}"`, ExitCode.USAGE)
}

/**
 * Why the OS keyring cannot be there, known without loading the binding, or undefined: on Linux the Secret Service
 * is reached over a D-Bus session bus (DBUS_SESSION_BUS_ADDRESS, or the usual $XDG_RUNTIME_DIR/bus). CI runners and
 * containers usually have none.
 */
export function keyringAbsence(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (process.platform !== 'linux' || env.DBUS_SESSION_BUS_ADDRESS) return undefined
  if (env.XDG_RUNTIME_DIR && existsSync(join(env.XDG_RUNTIME_DIR, 'bus'))) return undefined
  return 'no D-Bus session for the Secret Service (DBUS_SESSION_BUS_ADDRESS is not set)'
}

type Keyring = typeof import('@napi-rs/keyring')
let binding: Promise<Keyring> | undefined

function keyring(): Promise<Keyring> {
  binding ??= import('@napi-rs/keyring')
  return binding
}

/** The entry of one secret of one profile (`id` is the profile's keyring id, stable across saves). */
export function keyringAccount(id: string, field: SecretField): string {
  return `${id}:${field}`
}

/** A keyring failure as a one-line reason ("Couldn't access platform storage: …"), without a stack. */
export function keyringReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err)
  return message.split('\n')[0] || 'the OS keyring did not answer'
}

export async function keyringSet(account: string, value: string): Promise<void> {
  const {AsyncEntry} = await keyring()
  await new AsyncEntry(KEYRING_SERVICE, account).setPassword(value)
}

async function keyringGet(account: string): Promise<string | undefined> {
  const {AsyncEntry} = await keyring()
  return (await new AsyncEntry(KEYRING_SERVICE, account).getPassword()) ?? undefined
}

/** Removes an entry; true when one was there. */
async function keyringDelete(account: string): Promise<boolean> {
  const {AsyncEntry} = await keyring()
  return new AsyncEntry(KEYRING_SERVICE, account).deleteCredential()
}

/** Deletes the entries of `fields` under `id`, ignoring a keyring that is gone: the profile no longer points at them. */
export async function forgetKeyringSecrets(id: string, fields: readonly SecretField[] = SECRET_FIELDS): Promise<void> {
  for (const field of fields) {
    try {
      await keyringDelete(keyringAccount(id, field))
    } catch {
      // no keyring reachable now: nothing to delete that pay could reach either
    }
  }
}

/** A secret the settings refer to in the keyring, read on first use; a missing entry is an authentication problem. */
export async function readKeyringSecret(account: string, what: string, profile: string): Promise<string> {
  let value: string | undefined
  try {
    const absent = keyringAbsence()
    if (absent) throw new Error(absent)
    value = await keyringGet(account)
  } catch (err) {
    throw new PayError(
      `the ${what} of profile "${profile}" is in the OS keyring, which cannot be read now: ${keyringReason(err)}`,
      ExitCode.AUTH,
      'unlock the keyring, or set the secret in the environment (PAY_CLIENT_SECRET / PAY_WEBHOOK_SECRET) for this run',
    )
  }
  if (value === undefined) {
    throw new PayError(
      `the ${what} of profile "${profile}" was not found in the OS keyring (removed, or another session's keyring)`,
      ExitCode.AUTH,
      `store it again: pay profiles add ${profile} --${what.replace(' ', '-')} - (or pay login --profile ${profile}), or set it in the environment for this run`,
    )
  }
  return value
}
