// Writes the context case with dsh's own session writer (the published @deepseek-ai packages pinned
// in ../shared/dsh-reference): a session with a request header change between steps, fs edits with
// their diff meta, a loop of one failing command, a compaction and a prune. Run it from a copy of that
// folder after `npm install`:   node write_context.mjs OUT_DIR
// Times are fixed and every id is chosen here, so two runs write the same events.
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import { createUserMessage, createAssistantMessage, createToolResultMessage } from '@deepseek-ai/dsh-llm'
import { rm, mkdir } from 'node:fs/promises'

const OUT = process.argv[2]
const CWD = '/home/user/context'
const PROVIDER = 'deepseek-official'
const MODEL = 'deepseek-v4-flash'
const T0 = 1790000000000
const TOOL = (name) => ({ name, description: `the ${name} tool`, parameters: { type: 'object' } })

const ctx = new Context()
await rm(OUT, { recursive: true, force: true })
await mkdir(OUT, { recursive: true })
await ctx.plugin(SessionStore)
await ctx.plugin(JsonlSessionPersistence, { root: OUT, compression: 'zstd', writeBatchMaxDelayMs: 5 })
const id = SessionId('context')
await ctx.sessionPersistence.create({ version: 0, id, createdAt: T0, cwd: CWD, delegationDepth: 0 })

let seq = 0
let time = T0 + 100
let batch = []
const nodes = [] // the model's surface as dsh folds it: the seq of each current node, in order
const ev = (type, data, extra = {}) => {
  const e = { type, seq: seq++, time: time++, data, ...extra }
  batch.push(e)
  const op = extra.surfaceOp
  if (op === 'append') nodes.push(e.seq)
  else if (op) { const a = nodes.indexOf(op.start); nodes.splice(a, nodes.indexOf(op.end) - a + 1, e.seq) }
  return e
}
const flush = async () => { if (batch.length) await ctx.sessionPersistence.append(id, batch); batch = [] }
const user = (text, source = { kind: 'user' }, surfaceOp = 'append', sources) =>
  ev('user/message', createUserMessage({ content: [{ type: 'text', text }], source }),
    { surfaceOp, ...(sources ? { sourceEventSeqs: sources } : {}) })
const header = (reason, tools, extra = {}) =>
  ev('request/header', { header: { config: { provider: PROVIDER, model: MODEL, ...extra.config }, ...(extra.adapterDefaults ? { adapterDefaults: extra.adapterDefaults } : {}),
    system: 'You are a coding agent.', tools: tools.map(TOOL) }, reason })
const model = (turn, step, calls, usage) => {
  const content = calls.length ? calls.map(([cid, name, args]) => ({ type: 'tool-call', id: cid, name, arguments: args }))
    : [{ type: 'text', text: 'done' }]
  const message = createAssistantMessage({ content, source: { provider: PROVIDER, model: MODEL } })
  return ev('assistant/message', { turn, step, message, usage }, { surfaceOp: 'append', sourceEventSeqs: [] })
}
const call = (turn, step, cid, name, args) => ev('tool/call', { turn, step, callId: cid, name, arguments: args })
const result = (turn, step, cid, text, c, { isError = false, error, meta } = {}) => {
  const data = { turn, step, message: createToolResultMessage({ callId: cid, content: [{ type: 'text', text }], isError }) }
  if (error) data.error = error
  if (meta !== undefined) data.meta = meta
  return ev('tool/result', data, { surfaceOp: 'append', sourceEventSeqs: [c.seq] })
}
const step = async (turn, n, calls, usage, results) => {
  ev('step/start', { turn, step: n })
  const h = results.header
  if (h) header(...h)
  model(turn, n, calls, usage)
  const out = calls.map(([cid, name, args], k) => { const c = call(turn, n, cid, name, args); return result(turn, n, cid, ...results.each[k](c)) })
  ev('step/end', { turn, step: n })
  await flush()
  return out
}

// Turn 1: write a file, then (after a header change: edit offered, reasoning effort set) edit it twice.
ev('turn/start', { turn: 1 })
const prompt = user('fix the bug in src/app.py')
const created = { diffs: [] }
const hunk = (a, b) => ({ diffs: [{ path: 'src/app.py', oldText: a, newText: b }] })
const [r1] = await step(1, 1, [['call_w1', 'write', '{"file_path":"src/app.py","content":"x = 1\\n"}']],
  { inputTokens: 1200, outputTokens: 40 }, { header: ['initial', ['bash', 'read', 'write']],
    each: [c => ['Wrote src/app.py', c, { meta: created }]] })
const [r2] = await step(1, 2, [['call_e1', 'edit', '{"file_path":"src/app.py","old":"x = 1","new":"x = 2"}']],
  { inputTokens: 1500, outputTokens: 30, cacheReadTokens: 1200 },
  { header: ['change', ['bash', 'edit', 'read'], { config: { reasoningEffort: 'high' }, adapterDefaults: { reasoningEffort: true } }],
    each: [c => ['Edited src/app.py', c, { meta: hunk('x = 1', 'x = 2') }]] })
await step(1, 3, [['call_e2', 'edit', '{"file_path":"src/app.py","old":"x = 2","new":"x = 3"}'],
                  ['call_r1', 'read', '{"file_path":"README.md"}']],
  { inputTokens: 1800, outputTokens: 30, cacheReadTokens: 1500 },
  { each: [c => ['Edited src/app.py', c, { meta: hunk('x = 2', 'x = 3') }],
           c => ['# readme', c, { meta: { path: 'README.md', offset: 1, lines: [{ number: 1, text: '# readme' }], totalLines: 1 } }]] })
// The same failing command three times in a row.
const fail = { isError: true, error: { name: 'ToolError', code: 'EXIT_1' } }
let n = 4
for (const k of [1, 2, 3]) {
  await step(1, n++, [[`call_b${k}`, 'bash', '{"command":"make test"}']], { inputTokens: 1900 + 100 * k, outputTokens: 10 },
    { each: [c => ['make: *** [test] Error 1', c, fail]] })
}
ev('step/start', { turn: 1, step: n })
model(1, n, [], { inputTokens: 2300, outputTokens: 5 })
ev('step/end', { turn: 1, step: n })
ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
await flush()

// A prune: the first write's result rewritten to a stub (a tool/result replace of one node).
const pruned = { shadowedRange: { start: r1.seq, end: r1.seq }, shadowedSeqs: [r1.seq], shadowedTokenCount: 120 }
const prune = ev('compaction/prune', pruned)
const block = r1.data.message.content[0]
const stub = { ...r1.data, message: { ...r1.data.message, content: [{ ...block, content: [{ type: 'text', text: '[pruned]' }] }] } }
ev('tool/result', stub, { surfaceOp: { op: 'replace', start: r1.seq, end: r1.seq }, sourceEventSeqs: [r1.seq, prune.seq] })
await flush()

// A compaction of everything from the prompt to the second edit's result.
const cmpId = 'cmp-ctx-1'
const start = ev('compaction/start', { compactionId: cmpId, turn: null })
const surface = nodes.slice(nodes.indexOf(prompt.seq), nodes.indexOf(r2.seq) + 1)
const summary = ev('compaction/summary', { compactionId: cmpId, summary: [{ type: 'text', text: 'The user asked to fix src/app.py; it was written and edited.' }],
  shadowedRange: { start: prompt.seq, end: r2.seq }, shadowedSeqs: surface, shadowedTokenCount: 2600, provider: PROVIDER, model: MODEL,
  usage: { inputTokens: 3000, outputTokens: 60 } })
user('Summary: the user asked to fix src/app.py; it was written and edited.', { kind: 'plugin', plugin: 'compact', compactionId: cmpId },
  { op: 'replace', start: prompt.seq, end: r2.seq }, [...surface, start.seq, summary.seq])
ev('compaction/end', { compactionId: cmpId, turn: null })
await flush()

// Turn 2: one more request, after the compaction.
ev('turn/start', { turn: 2 })
user('now run the tests')
await step(2, 1, [['call_b9', 'bash', '{"command":"pytest -q"}']], { inputTokens: 900, outputTokens: 12 },
  { header: ['change', ['bash', 'edit', 'read', 'write']], each: [c => ['1 passed', c]] })
ev('step/start', { turn: 2, step: 2 })
model(2, 2, [], { inputTokens: 1000, outputTokens: 3 })
ev('step/end', { turn: 2, step: 2 })
ev('turn/end', { turn: 2, reason: { kind: 'completed' } })
await flush()
await ctx.fiber.dispose()
console.log('wrote', seq, 'events')

