/**
 * The command surface (ids, aliases, args, flags with their chars, types, options and defaults) as users' scripts
 * see it, snapshotted from the built oclif manifest. A change here shows up in review as a snapshot diff:
 * renaming or removing a flag breaks scripts. Update deliberately with `npx vitest run -u` and say why.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

interface ManifestFlag {name: string; char?: string; type: string; required?: boolean; multiple?: boolean; options?: string[]; default?: unknown; allowNo?: boolean; hidden?: boolean}
interface ManifestCommand {id: string; aliases?: string[]; hidden?: boolean; args?: Record<string, {name: string; required?: boolean; options?: string[]}>; flags: Record<string, ManifestFlag>}

it('matches the committed snapshot of every command, flag and alias', async () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, ManifestCommand>}
  const surface = Object.values(manifest.commands)
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((c) => ({
      command: c.id.replace(/:/g, ' '),
      ...(c.aliases && c.aliases.length > 0 ? {aliases: c.aliases.map((a) => a.replace(/:/g, ' '))} : {}),
      ...(c.hidden ? {hidden: true} : {}),
      args: Object.values(c.args ?? {}).map((a) => `${a.name}${a.required ? '' : '?'}${a.options ? `(${a.options.join('|')})` : ''}`),
      flags: Object.values(c.flags)
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((f) =>
          [
            `--${f.name}`,
            f.char ? `-${f.char}` : '',
            f.type === 'boolean' ? (f.allowNo ? 'boolean(--no-)' : 'boolean') : 'value',
            f.required ? 'required' : '',
            f.multiple ? 'multiple' : '',
            f.options ? `(${f.options.join('|')})` : '',
            f.default !== undefined && f.type !== 'boolean' ? `default=${JSON.stringify(f.default)}` : '',
          ]
            .filter(Boolean)
            .join(' '),
        ),
    }))
  await expect(JSON.stringify(surface, null, 2) + '\n').toMatchFileSnapshot('./__snapshots__/command-surface.json')
})
