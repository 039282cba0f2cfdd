/**
 * A headless Chromium for browser tests, shipped inside an npm package (@sparticuz/chromium, a dev dependency)
 * and driven by playwright-core: `npm ci && npm test` needs nothing installed by hand. Only the package's files are
 * used (its JavaScript targets AWS Lambda: fixed /tmp paths, no atomic unpacking).
 *
 * The package carries Brotli-compressed files: the browser, its fonts, and the NSS libraries it links against
 * (built for Amazon Linux; they load on any glibc Linux, so a machine without libnss3 works too). They are
 * decompressed once per package version into node_modules/.cache/pay-chromium/<version>/: into a fresh staging
 * directory first, renamed into place when complete, so parallel test runs never use a half-written browser.
 *
 * There is no skip: when the browser cannot start, launchChromium throws with the cause, and the tests fail.
 */
import {createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import type {Writable} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import {createBrotliDecompress} from 'node:zlib'
import {type Browser, chromium} from 'playwright-core'
import {extract} from 'tar-fs'
import {ROOT} from './cli.js'

const PACKAGE = '@sparticuz/chromium'
const COMPLETE = '.complete'

function packageDir(): string {
  // the package exports only its entry point (somewhere under build/): walk up to the directory holding bin/
  let dir = dirname(createRequire(import.meta.url).resolve(PACKAGE))
  while (!existsSync(join(dir, 'bin', 'chromium.br'))) dir = dirname(dir)
  return dir
}

/** Decompress one .br file (a .tar.br into a directory) into `target`. */
async function unbrotli(file: string, target: string): Promise<void> {
  const sink: Writable = file.endsWith('.tar.br') ? extract(target) : createWriteStream(target, {mode: 0o700})
  await pipeline(createReadStream(file), createBrotliDecompress(), sink)
}

/** Decompress the package's files into the cache (once per version); returns the cache directory. */
export async function unpackChromium(cacheRoot = join(ROOT, 'node_modules', '.cache', 'pay-chromium')): Promise<string> {
  const pkg = packageDir()
  const version = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as {version: string}).version
  const dir = join(cacheRoot, version)
  if (existsSync(join(dir, COMPLETE))) return dir
  mkdirSync(cacheRoot, {recursive: true})
  const stage = mkdtempSync(join(cacheRoot, `.stage-${version}-`))
  try {
    await Promise.all([
      unbrotli(join(pkg, 'bin', 'chromium.br'), join(stage, 'chromium')),
      unbrotli(join(pkg, 'bin', 'fonts.tar.br'), join(stage, 'fonts')),
      unbrotli(join(pkg, 'bin', 'al2023.tar.br'), join(stage, 'al2023')),
    ])
    // the package's own fonts.conf names Lambda's paths (/tmp/fonts); this one names where the fonts are here
    writeFileSync(join(stage, 'fonts.conf'), `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(dir, 'fonts')}</dir>\n  <cachedir>${join(dir, 'fontconfig-cache')}</cachedir>\n</fontconfig>\n`)
    writeFileSync(join(stage, COMPLETE), `${version}\n`)
    try {
      renameSync(stage, dir)
    } catch (error) {
      // another run finished first: use its copy
      if (!existsSync(join(dir, COMPLETE))) throw error
      rmSync(stage, {recursive: true, force: true})
    }
  } catch (error) {
    rmSync(stage, {recursive: true, force: true})
    throw error
  }
  return dir
}

/** Launch the packaged Chromium headless (as root too: no sandbox). Throws, naming the cause, when it cannot start. */
export async function launchChromium(): Promise<Browser> {
  let dir = '(not unpacked)'
  try {
    dir = await unpackChromium()
    return await chromium.launch({
      executablePath: join(dir, 'chromium'),
      timeout: 60_000,
      args: ['--no-sandbox', '--no-zygote', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      env: {...process.env, FONTCONFIG_PATH: dir, LD_LIBRARY_PATH: [join(dir, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':')},
    })
  } catch (error) {
    throw new Error(`the headless Chromium of ${PACKAGE} could not start (unpacked in ${dir}; run \`npm ci\` if the package is missing): ${(error as Error).message}`)
  }
}
