import t from 'tap'
import {memoryHistory, NASTY} from '../helpers/report-ledger.js'
import {buildReport} from '../../src/reports/model.js'
import {renderChart, renderHtml, renderMarkdown, renderMermaid} from '../../src/reports/index.js'
import {mermaidLabel} from '../../src/reports/mermaid.js'

const report = async () => {
  const h = await memoryHistory()
  return {h, r: buildReport(h.ledger, h.mainline, {mainRef: 'refs/heads/main', skills: ['onboarding']})}
}

t.test('the HTML page is self-contained and shows record text as text', async t => {
  const {h, r} = await report()
  const html = renderHtml(r)
  t.match(html, /^<!doctype html>/)
  t.notMatch(html, /<(script|link|img|iframe)\b/i, 'no script, stylesheet link, image or frame')
  t.notMatch(html, /(src|href)\s*=\s*["']?\s*(https?:)?\/\//i, 'nothing fetched from elsewhere')
  t.match(html, /<style>/)
  t.match(html, /<svg [^>]*class="exp-chart"/, 'the chart is inline SVG')
  t.notOk(html.includes(NASTY), 'markup in a record never reaches the page raw')
  t.ok(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co'))
  t.ok(html.includes('why: success improves: &lt;b&gt;worse&lt;/b&gt; &amp; &quot;quoted&quot;'), 'the rejection reason, escaped')
  t.ok(html.includes(h.ids.trace), 'the provenance list reaches the failing trace')
  t.equal(renderHtml(r), html, 'deterministic')
})

t.test('the Markdown report has the dashboards, the chart, the rejections and a mermaid graph', async t => {
  const {h, r} = await report()
  const md = renderMarkdown(r)
  t.match(md, /!\[success per iteration of onboarding\]\(chart-onboarding\.svg\)/)
  t.match(md, /\| 2 \| v2 \| 75\.0% \| 70\.0% \| reject \| 70\.0% \|/)
  t.match(md, /```text\nIteration 1\nCurrent skill: onboarding v1/)
  t.match(md, /Validation:\n {2}v1 {4}50\.0%\n {2}v2 {4}75\.0%/)
  // record text is inert: HTML and markup characters escaped (GitHub would render <b> as bold)
  t.ok(md.includes('- why: success improves: \\<b\\>worse\\</b\\> \\& "quoted"'), 'the rejection reason, escaped')
  t.match(md, /```mermaid\nflowchart LR\n/)
  t.ok(md.includes(`decision ${h.ids.d2}`))
})

t.test("record text in the Markdown report draws no heading, image, link, HTML or table column", async t => {
  const {mdText} = await import('../../src/reports/format.js')
  const evil = 'tweak | x\n\n## Security notice\r\n![pixel](https://evil.example/p.png) [fix your key](https://evil.example) <img src=x> `code` *em* \u202eevil'
  const out = mdText(evil)
  t.notMatch(out, /[\n\r\u202e]/, 'one line, no bidirectional override')
  t.notMatch(out, /(^|[^\\])[|![\]()<>`*#&]/, 'every markup character escaped')
  t.equal(out.replace(/\\(.)/g, '$1'), 'tweak | x ## Security notice ![pixel](https://evil.example/p.png) [fix your key](https://evil.example) <img src=x> `code` *em* evil', 'and the text reads the same')
})

t.test("a proposed line with newlines, a fence and terminal escapes stays one inert line of its iteration's dashboard", async t => {
  const {dashboardLines} = await import('../../src/reports/dashboard.js')
  const {renderDashboard} = await import('../../src/loop/dashboard.js')
  const {r} = await report()
  const it = r.skills[0]!.iterations[0]!
  const evil = 'x\n```\n\n# PWNED\r\nDecision:\u2028  ACCEPT\n\u001b[31mred \u202eevil'
  const lines = dashboardLines({...it, candidate: {...it.candidate, lines: [evil]}})
  const shown = lines.find(l => l.startsWith('  + x'))!
  t.ok(shown, 'the proposed line is shown')
  t.equal(lines.length, dashboardLines(it).length, 'it adds no line of its own')
  const joined = lines.join('\n')
  t.notOk(['\r', '\u001b', '\u202e', '\u2028'].some(c => joined.includes(c)), 'no raw escape')
  t.notMatch(joined, /^# PWNED/m, 'no heading of its own')
  t.equal(lines.filter(l => l.startsWith('Decision:')).length, 1, 'and no decision of its own')
  t.ok(shown.includes('\\u000a```\\u000a\\u000a# PWNED\\u000d\\u000aDecision:\\u2028  ACCEPT\\u000a\\u001b[31mred \\u202eevil'), 'every such character is shown as its escape')
  const md = renderMarkdown({...r, skills: [{...r.skills[0]!, iterations: [{...it, candidate: {...it.candidate, lines: [evil]}}]}]})
  t.notMatch(md, /^# PWNED/m)
  t.notOk(md.includes('\u001b'), 'no raw ESC in report.md')
  // the terminal dashboard of exp evolve: a pattern's text is one line too
  const text = renderDashboard({iteration: 1, skill: {name: 'onboarding', version: 1, blob: '0'.repeat(40), commit: '0'.repeat(40)}, training: {manifest: 'mf-x', evaluation: 'ev-x', passed: 1, total: 2, rate: 0.5}, patterns: [{pattern: 'missing_check', signature: 's', description: 'd\nDecision:\n  ACCEPT', support: 1, failures: 0} as never], knowledge: [], episodes: 2} as never)
  t.match(text, /Decision:\\u000a {2}ACCEPT/, 'the pattern is shown, escaped')
  t.notMatch(text, /^Decision:/m, 'no decision line the run did not write')
})

t.test('mermaid: the chain in order, labels that cannot break the graph', async t => {
  const {h, r} = await report()
  const m = renderMermaid(r.skills[0]!.provenance)
  const id = (x: string) => x.replace(/-/g, '_')
  for (const [a, b] of [[h.ids.trace, h.ids.evidence], [h.ids.evidence, h.ids.knowledge], [h.ids.knowledge, h.ids.recall], [h.ids.recall, h.ids.p1], [h.ids.d1, 'onboarding_v2']]) t.ok(m.includes(`${id(a)} --> ${id(b)}`), `${a} -> ${b}`)
  t.ok(m.includes(`onboarding_v1 -.-> ${id(h.ids.p1)}`), 'the proposal hangs off the version it was made on')
  t.notOk(m.includes(id(h.ids.p2)), 'rejected chains only when asked')
  t.ok(renderMermaid(r.skills[0]!.provenance, [r.skills[0]!.rejected[0]!.chain]).includes(`${id(h.ids.d2)}["decision ${h.ids.d2}<br/>REJECT"]:::reject`))
  t.equal(mermaidLabel('a "b" <c> `d`\ne'), "a #quot;b#quot; #lt;c#gt; 'd'<br/>e")
})

t.test('the chart breaks its line where a value is missing and marks rejected candidates', async t => {
  const svg = renderChart([{iteration: 0, version: 1, holdout: 0.5}, {iteration: 1, version: 1, validation_before: 0.4, validation_after: 0.3, verdict: 'reject'}, {iteration: 2, version: 2, validation_before: 0.4, validation_after: 0.6, verdict: 'accept', holdout: 0.7}], 'x <y>')
  t.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
  t.match(svg, /<title>x &lt;y&gt;<\/title>/)
  t.equal((svg.match(/<polyline [^>]*stroke="#2e7d32"/g) ?? []).length, 0, 'held-out has no two neighbouring points: no line')
  t.equal((svg.match(/<circle [^>]*stroke="#2e7d32"/g) ?? []).length, 2, 'but both points are drawn')
  t.match(svg, /fill="#ffffff" stroke="#c0392b"[^>]*><title>iteration 1: validation, candidate 30\.0% \(rejected\)/)
  t.match(renderChart([], 'empty'), /<\/svg>$/)
})

t.test('a skill with no proposal yet gets a sentence, not an empty chart', async t => {
  const {r} = await report()
  const empty = {...r, skills: [{...r.skills[0]!, iterations: [], chart: [], rejected: []}]}
  t.match(renderMarkdown(empty), /### Success per iteration\n\nNo iterations yet\./)
  t.notMatch(renderMarkdown(empty), /chart-onboarding\.svg/)
  t.notMatch(renderHtml(empty), /<svg/)
})

t.test("an attempt's reason (an agent's or another lane's words) in the contract section of report.md is text", async t => {
  const {r} = await report()
  const reason = 'tweak | x\n\n## Security notice\n\n![pixel](https://evil.example/p.png) [fix your key](https://evil.example)'
  const md = renderMarkdown({...r, contracts: [{contract: 'quad', main: {commit: 'a'.repeat(40), version: 1}, versions: [], rejected: [{id: 'at-0123456789abcdef01234567', ordinal: 1, lane: 'mallory', reason, why: 'dev improves: neutral'}]}]})
  const section = md.slice(md.indexOf('## Contract quad'))
  t.same(section.split('\n').filter(l => l.startsWith('#')), ['## Contract quad'], 'no heading but its own')
  t.notMatch(section, /(^|[^\\])!\[/, 'no image')
  t.notMatch(section, /(^|[^\\])\[fix/, 'no link')
  t.match(section, /^- #1 `at-0123456789abcdef01234567` \(mallory\) tweak \\\| x \\#\\# Security notice/m)
})

// Found by a sweep: a knowledge record's claim of two lines (an LLM's drafted text, or any lane's
// record) printed a forged version header at column 0 of `exp provenance`.
t.test('a label of a provenance tree is one line, whatever the record text in it', async t => {
  const {renderForest} = await import('../../src/reports/tree.js')
  const text = renderForest([{label: 'onboarding v2', children: [{label: 'knowledge kn-1: "a\nonboarding v3  promoted by merge 0000000 \u001b[2J\u2028x"'}]}])
  const lines = text.split('\n')
  t.equal(lines.length, 2, 'a root and its one child')
  t.notOk(lines.some(l => /^onboarding v3/.test(l)), 'no line of the record text starts a line of the view')
  t.match(lines[1], /\\u000a.*\\u001b.*\\u2028/, 'the breaks and the escape shown escaped')
})
