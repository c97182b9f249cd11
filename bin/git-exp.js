#!/usr/bin/env node
// `git exp <command>`: git finds this as `git-exp` on PATH and runs it with the rest of the
// arguments (`git exp --help` opens the git-exp(1) manual page instead, which npm installs).
import './run.js'
