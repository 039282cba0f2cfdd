#!/usr/bin/env node
// `pay` is bin/run.cjs (package.json "bin"); this runs it for whatever still names bin/run.js. Slower to start
// (an ES module: Node starts its ES-module loader first), so the bench and the tests run bin/run.cjs.
import {createRequire} from 'node:module'

createRequire(import.meta.url)('./run.cjs')
