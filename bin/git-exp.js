#!/usr/bin/env node
// `git exp <command>`: git finds this as `git-exp` on PATH and runs it with the rest of the arguments.
import {execute} from '../dist/vendor/oclif.js'

await execute({dir: import.meta.url})
