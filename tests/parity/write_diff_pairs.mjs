// Writes the pairs `dsh-tui diff` is tested on, with dsh's own session writer (the published packages
// pinned in ../shared/dsh-reference). Run it from a copy of that folder after `npm install`:
//   node write_diff_pairs.mjs OUT_DIR
// OUT_DIR is a sessions root (zstd). Each pair is a run and its re-run of one task, the same but for
// one planted difference in turn 2's second call (c4): other arguments, another tool, another result,
// a retry on one side only. The re-runs' callIds differ (a model makes new ones) and their first call's
// arguments differ only in key order and spacing (the same arguments). Then a fork and its source, and
// a session resumed by dsh after a crash (its two runs). Times are fixed and ids chosen (but in the
// resumed run, where dsh's session stamps its own clock). tests/unit/test_diff_pairs.py reads the
// committed output (tests/parity/diff-cases/), and writes it afresh where node and npm can.
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import { createUserMessage, createAssistantMessage, createToolResultMessage } from '@deepseek-ai/dsh-llm'
import { rm, mkdir } from 'node:fs/promises'

const OUT = process.argv[2]
const CWD = '/home/user/parity'
const PROVIDER = 'deepseek-official'
const MODEL = 'deepseek-v4-flash'
const T0 = 1790000000000

async function mount(root) {
  const ctx = new Context()
  await ctx.plugin(SessionStore)
  await ctx.plugin(JsonlSessionPersistence, { root, compression: 'zstd', writeBatchMaxDelayMs: 5 })
  return ctx
}

class Log {
  constructor(ctx, id, meta = {}, start = 0) {
    this.ctx = ctx
    this.id = SessionId(id)
    this.meta = { version: 0, id: this.id, createdAt: T0, cwd: CWD, delegationDepth: 0, ...meta }
    this.seq = start
    this.time = T0 + 100 + start * 10
    this.batch = []
  }
  async create() { await this.ctx.sessionPersistence.create(this.meta); return this }
  ev(type, data, extra = {}) {
    const e = { type, seq: this.seq++, time: (this.time += 10), data, ...extra }
    this.batch.push(e)
    return e
  }
  async flush() {
    if (this.batch.length) await this.ctx.sessionPersistence.append(this.id, this.batch)
    this.batch = []
  }
  user(text) {
    return this.ev('user/message', createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }),
      { surfaceOp: 'append' })
  }
  header() {
    return this.ev('request/header', { header: { config: { provider: PROVIDER, model: MODEL },
      tools: [{ name: 'bash', description: 'Run a command', parameters: { type: 'object' } },
        { name: 'read', description: 'Read a file', parameters: { type: 'object' } }] }, reason: 'initial' })
  }
  assistant(turn, step, content, usage) {
    const message = createAssistantMessage({ content, source: { provider: PROVIDER, model: MODEL } })
    return this.ev('assistant/message', { turn, step, message, usage }, { surfaceOp: 'append', sourceEventSeqs: [] })
  }
  retry(turn, step) {
    this.ev('llm/retry', { retryId: `retry-${turn}-${step}`, turn, step, provider: PROVIDER, mode: 'normal',
      policyKey: '["normal",3]', retry: 1, maxRetries: 3, delayMs: 2000,
      failure: { message: 'upstream timed out', code: 'TIMEOUT', status: 504 } })
    this.ev('llm/retry-started', { retryId: `retry-${turn}-${step}`, turn, step, retry: 1 })
  }
  /** One step calling one tool: the model's ask, tool/call, tool/result (unless `crash`). */
  callStep(turn, step, c, { first = false, prompt, crash = false } = {}) {
    this.ev('step/start', { turn, step })
    if (first) this.user(prompt)
    this.header()
    if (c.retry) this.retry(turn, step)
    this.assistant(turn, step, [{ type: 'tool-call', id: c.id, name: c.name, arguments: c.args }], { inputTokens: 100, outputTokens: 10 })
    const call = this.ev('tool/call', { turn, step, callId: c.id, name: c.name, arguments: c.args })
    if (crash) return
    const data = { turn, step, message: createToolResultMessage({ callId: c.id, content: [{ type: 'text', text: c.text ?? 'ok' }], isError: !!c.isError }) }
    if (c.error) data.error = c.error
    this.ev('tool/result', data, { surfaceOp: 'append', sourceEventSeqs: [call.seq] })
    this.ev('step/end', { turn, step })
  }
  /** A turn: a prompt, one step per call, then a text answer. */
  turn(turn, prompt, calls) {
    this.ev('turn/start', { turn })
    calls.forEach((c, k) => this.callStep(turn, k + 1, c, { first: k === 0, prompt }))
    const step = calls.length + 1
    this.ev('step/start', { turn, step })
    this.header()
    this.assistant(turn, step, [{ type: 'text', text: 'done' }], { inputTokens: 20, outputTokens: 2 })
    this.ev('step/end', { turn, step })
    this.ev('turn/end', { turn, reason: { kind: 'completed' } })
  }
}

const P1 = 'List the repository and read the README.'
const P2 = 'Run the tests, then deploy.'

/** The task's two turns; `id` suffixes the callIds, `plant` changes turn 2's second call (c4). */
function task(suffix, { c1args = '{"command":"ls","cwd":"/w"}', plant = {} } = {}) {
  return [
    [1, P1, [{ id: `c1${suffix}`, name: 'bash', args: c1args, text: 'README.md\nsrc' },
             { id: `c2${suffix}`, name: 'read', args: '{"path":"README.md"}', text: '# demo' }]],
    [2, P2, [{ id: `c3${suffix}`, name: 'bash', args: '{"command":"make test"}', text: 'ok 12 tests' },
             { id: `c4${suffix}`, name: 'bash', args: '{"command":"make deploy"}', text: 'deployed', ...plant },
             { id: `c5${suffix}`, name: 'bash', args: '{"command":"git status"}', text: 'clean' }]],
  ]
}

const PAIRS = {
  'args': { command: 'make deploy --force' },
  'tool': { name: 'read', args: '{"path":"deploy.sh"}', text: '#!/bin/sh' },
  'result': { text: 'deploy failed: permission denied', isError: true },
  'retry': { retry: true },
}

async function writeTask(root, id, turns) {
  const ctx = await mount(root)
  const l = await new Log(ctx, id).create()
  for (const [n, prompt, calls] of turns) { l.turn(n, prompt, calls); await l.flush() }
  await ctx.fiber.dispose()
}

async function pairs(root) {
  for (const [name, plant] of Object.entries(PAIRS)) {
    await writeTask(root, `${name}-a`, task('a'))
    const planted = plant.command ? { args: JSON.stringify({ command: plant.command }) } : plant
    await writeTask(root, `${name}-b`, task('b', { c1args: '{ "cwd": "/w",  "command": "ls" }', plant: planted }))
  }
}

/** A source session and a fork of it after turn 1 (dsh's own seeding: session/end-seed after the
 *  seed), each then doing turn 2 with the same prompt; the fork runs c3 with other arguments. */
async function fork(root) {
  const ctx = await mount(root)
  const src = await new Log(ctx, 'fork-src').create()
  const [t1, t2] = task('s')
  src.turn(...t1); await src.flush()
  const seed = (await ctx.sessionPersistence.inspect(SessionId('fork-src'))).events
  src.turn(...t2); await src.flush()
  await ctx.fiber.dispose()
  const ctx2 = await mount(root)
  const f = ctx2.sessions.create('fork-child', { seed, meta: { cwd: CWD, parentSession: 'fork-src', seedLength: seed.length, delegationDepth: 0, createdAt: T0 + 30 } })
  await ctx2.sessions.flush(f)
  await ctx2.fiber.dispose()
  const ctx3 = await mount(root)
  const tail = new Log(ctx3, 'fork-child', {}, seed.length + 1)
  const [n, prompt, calls] = task('f')[1]
  tail.turn(n, prompt, [{ ...calls[0], args: '{"command":"make test -k"}' }, ...calls.slice(1)])
  await tail.flush()
  await ctx3.fiber.dispose()
}

/** Run 1 crashes after c4's tool/call; dsh's prepare writes the repair (TOOL_OUTCOME_UNKNOWN) and the
 *  resumed session's session/end-seed; run 2 does the same prompt again and c4 completes. */
async function resumed(root) {
  let ctx = await mount(root)
  const l = await new Log(ctx, 'resumed').create()
  const calls = task('r')[1][2]
  l.ev('turn/start', { turn: 1 })
  l.callStep(1, 1, calls[0], { first: true, prompt: P2 })
  l.callStep(1, 2, calls[1], { crash: true })
  await l.flush()
  await ctx.fiber.dispose()
  ctx = await mount(root)
  const prep = await ctx.sessionPersistence.prepare(SessionId('resumed'))
  const s = prep.session
  ctx.sessions.enter(s)
  ctx.sessions.announce(s)
  const again = task('r2')[1][2]
  s.append('turn/start', { turn: 2 })
  again.forEach((c, k) => {
    s.append('step/start', { turn: 2, step: k + 1 })
    if (k === 0) s.append('user/message', createUserMessage({ content: [{ type: 'text', text: P2 }], source: { kind: 'user' } }), { surfaceOp: 'append' })
    s.append('request/header', { header: { config: { provider: PROVIDER, model: MODEL },
      tools: [{ name: 'bash', description: 'Run a command', parameters: { type: 'object' } }] }, reason: 'resume' })
    const message = createAssistantMessage({ content: [{ type: 'tool-call', id: c.id, name: c.name, arguments: c.args }], source: { provider: PROVIDER, model: MODEL } })
    s.append('assistant/message', { turn: 2, step: k + 1, message, usage: { inputTokens: 100, outputTokens: 10 } }, { surfaceOp: 'append', sourceEventSeqs: [] })
    const call = s.append('tool/call', { turn: 2, step: k + 1, callId: c.id, name: c.name, arguments: c.args })
    s.append('tool/result', { turn: 2, step: k + 1, message: createToolResultMessage({ callId: c.id, content: [{ type: 'text', text: c.text }], isError: false }) }, { surfaceOp: 'append', sourceEventSeqs: [call.seq] })
    s.append('step/end', { turn: 2, step: k + 1 })
  })
  s.append('turn/end', { turn: 2, reason: { kind: 'completed' } })
  await ctx.sessions.flush(s)
  await ctx.fiber.dispose()
}

await rm(OUT, { recursive: true, force: true })
await mkdir(OUT, { recursive: true })
await pairs(OUT)
await fork(OUT)
await resumed(OUT)
console.log('wrote', Object.keys(PAIRS).length * 2 + 3, 'sessions')
