import type {GateResult} from './gate.js'
import {shownPath} from './scope.js'

/** XML text and attribute escaping; characters XML 1.0 cannot carry at all are dropped. */
function esc(s: string): string {
  return s
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
}

interface Case {
  name: string
  passed: boolean
  detail: string
}

function suite(name: string, cases: readonly Case[]): string[] {
  const failures = cases.filter(c => !c.passed).length
  const out = [`  <testsuite name="${esc(name)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0">`]
  for (const c of cases) {
    const open = `    <testcase classname="exp.gate.${esc(name)}" name="${esc(c.name)}"`
    if (c.passed) out.push(`${open}>`, `      <system-out>${esc(c.detail)}</system-out>`, '    </testcase>')
    else out.push(`${open}>`, `      <failure message="${esc(c.detail)}" type="policy">${esc(`${c.name}: ${c.detail}`)}</failure>`, '    </testcase>')
  }
  out.push('  </testsuite>')
  return out
}

/**
 * The gate's result as JUnit XML (`exp gate --junit FILE`), for CI test reporters: one suite
 * for the scope check, one per evaluated skill or contract with a test case per policy check.
 */
export function gateJUnit(r: GateResult): string {
  const scope: Case[] = [
    {name: 'changes stay in the editable scope', passed: !r.scope.outside.length, detail: r.scope.outside.length ? `outside the editable scope: ${r.scope.outside.map(shownPath).join(', ')}` : `${r.scope.changed.length} changed file(s) in scope`},
    {name: 'no protected path changes', passed: !r.scope.protected.length, detail: r.scope.protected.length ? `protected paths changed: ${r.scope.protected.map(shownPath).join(', ')}` : 'no protected path changed'},
    {name: 'regular files only', passed: !r.scope.links.length, detail: r.scope.links.length ? `symbolic links, submodules or .gitattributes/.gitmodules files: ${r.scope.links.map(shownPath).join(', ')}` : 'no symbolic link, submodule or .gitattributes/.gitmodules file changed'},
    ...(r.stale?.length ? [{name: 'based on the current base', passed: false, detail: `the base changed protected files since: ${r.stale.map(shownPath).join(', ')}`}] : []),
  ]
  const judged = [...r.skills.map(s => ({name: s.skill, checks: s.checks})), ...r.contracts.map(c => ({name: `contract ${c.contract}`, checks: c.checks}))]
  const suites = [suite('scope', scope), ...judged.map(s => suite(s.name, s.checks))]
  const tests = scope.length + judged.reduce((n, s) => n + s.checks.length, 0)
  const failures = scope.filter(c => !c.passed).length + judged.reduce((n, s) => n + s.checks.filter(c => !c.passed).length, 0)
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="exp gate" tests="${tests}" failures="${failures}" errors="0">`, ...suites.flat(), '</testsuites>', ''].join('\n')
}

/** A gate that could not run at all (bad base revision, missing policy) as one erroring test. */
export function gateErrorJUnit(message: string): string {
  return ['<?xml version="1.0" encoding="UTF-8"?>', '<testsuites name="exp gate" tests="1" failures="0" errors="1">', '  <testsuite name="gate" tests="1" failures="0" errors="1" skipped="0">', '    <testcase classname="exp.gate" name="the gate runs">', `      <error message="${esc(message)}" type="error">${esc(message)}</error>`, '    </testcase>', '  </testsuite>', '</testsuites>', ''].join('\n')
}
