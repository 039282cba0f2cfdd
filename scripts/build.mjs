// Build: TypeScript to dist/, then the oclif manifest (commands are found from it, not by scanning at start-up).
import {execFileSync} from 'node:child_process'
import {rmSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = (name) => join(root, 'node_modules', '.bin', name)
const run = (cmd, args) => execFileSync(cmd, args, {cwd: root, stdio: 'inherit'})

rmSync(join(root, 'dist'), {recursive: true, force: true})
run(bin('tsc'), ['-p', 'tsconfig.json'])
run(bin('oclif'), ['manifest'])
