import t from 'tap'
import {graph, renderGraph} from '../../src/projections/index.js'
import {Lab} from '../helpers/lab.js'

t.test('the graph joins hypotheses, proposals, evaluations by split, decisions and merges; rejections stay', async t => {
  const lab = new Lab()
  const good = await lab.hypothesis()
  const {proposal, decision} = await lab.promoted(good)
  const bad = await lab.hypothesis()
  const p = await lab.proposal(bad)
  const d = await lab.decision(p, 'reject', [await lab.evaluation(p, {rate: 0.2})])
  const g = graph(await lab.ledger(), {now: lab.at(0)})
  t.equal(g.schema_version, 'research_evidence_graph_v0')
  const kinds = g.nodes.reduce<Record<string, number>>((a, n) => ({...a, [n.kind]: (a[n.kind] ?? 0) + 1}), {})
  t.same(kinds, {hypothesis: 2, proposal: 2, evaluation: 4, decision: 2, commit: 1})
  t.same(g.nodes.filter(n => n.kind === 'evaluation').map(n => `${n.split}/${n.role}`).sort(), ['holdout/candidate', 'validation/baseline', 'validation/candidate', 'validation/candidate'])
  t.ok(g.edges.some(e => e.from === proposal && e.to === good && e.rel === 'tests'))
  t.ok(g.edges.some(e => e.from === decision && e.rel === 'merged_as'))
  t.match(g.nodes.find(n => n.id === d), {verdict: 'reject'})
  t.match(g.nodes.find(n => n.id === bad), {status: 'contradicted'})
  const mermaid = renderGraph(g, 'mermaid')
  t.match(mermaid, /^graph LR\n/)
  t.match(mermaid, new RegExp(`${proposal.replace('-', '_')} -->\\|tests\\| ${good.replace('-', '_')}`))
  t.match(renderGraph(g, 'dot'), new RegExp(`"${decision}" -> "${proposal}" \\[label="decides"\\]`))
})

t.test('the graph holds no id or path from a private lane, no absolute path and no secret', async t => {
  const lab = new Lab()
  const pub = await lab.hypothesis('a', {statement: 'check stock first (see /home/alice/notes/x.md, token=hunter22secret)'})
  const {proposal} = await lab.promoted(pub)
  const secretHyp = await lab.hypothesis('a', {private: true, statement: 'private idea at /srv/private/held-out'})
  const secretProp = await lab.proposal(pub, 'a', true)
  // a private held-out evaluation of a public proposal, as the runner writes one
  const privEval = (await lab.store.append({kind: 'evaluation', body: {manifest: 'mf-000000000000000000000fff', split: 'holdout', role: 'candidate', proposal, skill: {name: 'onboarding', blob: 'f'.repeat(40)}, agent: {name: 'scripted'}, total: 1, passed: 1, failed: 0, invalid: 0, success_rate: 1, ci: [0, 1], per_scenario: [{scenario: 'holdout-secret-7', runs: 1, passes: 1, invalid: 0}], scores: {success: 1, violations: 0, tool_calls: 1, errors: 0, tokens: 0, latency_ms: 1, trajectory_length: 1}}, cites: [proposal]}, {lane: 'a', private: true, now: lab.clock})).id
  const g = graph(await lab.ledger(), {now: lab.at(0), env: {OPENAI_API_KEY: 'sk-test-abcdefghijklmnop1234'}})
  for (const format of ['json', 'mermaid', 'dot'] as const) {
    const out = renderGraph(g, format)
    for (const leak of [secretHyp, secretProp, privEval, 'holdout-secret-7', '/home/alice', '/srv/private', 'hunter22secret']) t.notOk(out.includes(leak), `${format} holds no ${leak}`)
    t.ok(out.includes(pub), `${format} keeps the public hypothesis`)
  }
  t.match(g.nodes.find(n => n.id === pub)!.label, /see ~\/notes\/x\.md, token=\[redacted\]/)
})
