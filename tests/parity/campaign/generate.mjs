// The parity campaign's generator: random sessions written by dsh's own writer (the published packages
// pinned in ../shared/dsh-reference), then crashed and damaged as real logs are.
//   node generate.mjs OUT SEED COUNT
// OUT/zstd and OUT/raw are sessions roots (compression on / off) holding COUNT sessions between them:
// random turns, steps, calls and results (errors too), retries (recovered, failed, crashed in), slash
// commands, approvals, compactions, usage samples in every order, forks and subagent children, resumed
// sessions, a crash at any point, and byte damage to raw lines and zstd frames. OUT/manifest.json says
// what was done to each session. Deterministic for a SEED (message ids aside, which dsh draws itself).
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import { createUserMessage, createAssistantMessage, createToolResultMessage } from '@deepseek-ai/dsh-llm'
import { rm, mkdir, readFile, writeFile } from 'node:fs/promises'
import { zstdCompressSync, zstdDecompressSync, constants } from 'node:zlib'
import { join } from 'node:path'

const [OUT, SEED = '1', COUNT = '50'] = process.argv.slice(2)
const CWD = '/home/user/campaign'
const PROJECT = '--home-user-campaign--'
const PROVIDER = 'deepseek-official', MODEL = 'deepseek-v4-flash'
const T0 = 1790000000000
const CHECKSUM = { params: { [constants.ZSTD_c_checksumFlag]: 1 } }

// mulberry32: a small seeded PRNG
let state = (Number(SEED) * 2654435761) >>> 0
function rand() { state = (state + 0x6D2B79F5) >>> 0; let t = state; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296 }
const int = (a, b) => a + Math.floor(rand() * (b - a + 1))
const chance = p => rand() < p
const pick = xs => xs[Math.floor(rand() * xs.length)]

async function mount(root, compression) {
  const ctx = new Context()
  await ctx.plugin(SessionStore)
  await ctx.plugin(JsonlSessionPersistence, { root, compression, writeBatchMaxDelayMs: 5 })
  return ctx
}
const logPath = (root, id, compression) => join(root, PROJECT, id, compression === 'zstd' ? 'session.jsonl.zstd' : 'session.jsonl')

/** A session's events, planned first (so a crash can cut them anywhere), appended in random batches. */
class Plan {
  constructor(id, start = 0) { this.id = id; this.events = []; this.seq = start; this.time = T0 + 100 + start * 7 }
  ev(type, data, extra = {}) { const e = { type, seq: this.seq++, time: this.time += int(0, 900), data, ...extra }; this.events.push(e); return e }
  usage() { const u = { inputTokens: int(1, 500), outputTokens: int(0, 90) }; if (chance(0.5)) u.cacheReadTokens = int(0, 300); if (chance(0.2)) u.cacheWriteTokens = int(0, 50); return u }
  model(turn, step, calls, { finish = calls.length ? 'tool-calls' : 'stop', failure, interrupted } = {}) {
    const first = this.seq
    const blocks = calls.length ? calls.map(id => ({ type: 'tool-call', id, name: pick(['bash', 'read', 'edit']), args: `{"n":${int(0, 99)}}` }))
      : [{ type: 'text', text: pick(['done', 'ok', 'here it is']) }]
    blocks.forEach((b, index) => {
      this.ev('assistant/chunk', { turn, step, chunk: { type: 'block-start', index, blockType: b.type } })
      if (b.type === 'tool-call') {
        for (let k = int(1, 4); k > 0; k--) this.ev('assistant/chunk', { turn, step, chunk: { type: 'tool-call-delta', index, id: b.id, name: b.name, argumentsDelta: 'x' } })
        this.ev('assistant/chunk', { turn, step, chunk: { type: 'block-end', index, block: { type: 'tool-call', id: b.id, name: b.name, arguments: b.args } } })
      } else {
        for (let k = int(1, 5); k > 0; k--) this.ev('assistant/chunk', { turn, step, chunk: { type: 'text-delta', index, text: 'w ' } })
        this.ev('assistant/chunk', { turn, step, chunk: { type: 'block-end', index, block: { type: 'text', text: b.text } } })
      }
    })
    const u = this.usage()
    const usageWhere = pick(['chunk+message', 'chunk+message', 'message', 'chunk', 'none', 'message+chunk-after', 'chunk+other-message'])
    if (usageWhere.startsWith('chunk')) this.ev('assistant/chunk', { turn, step, chunk: { type: 'usage', usage: u } })
    this.ev('assistant/chunk', { turn, step, chunk: { type: 'finish', reason: failure ? { kind: finish, failure } : { kind: finish } } })
    const content = blocks.map(b => b.type === 'tool-call' ? { type: 'tool-call', id: b.id, name: b.name, arguments: b.args } : { type: 'text', text: b.text })
    const data = { turn, step, message: createAssistantMessage({ content, source: { provider: PROVIDER, model: MODEL } }) }
    if (usageWhere.includes('message')) data.usage = usageWhere === 'chunk+other-message' ? this.usage() : u
    if (interrupted) data.interrupted = true
    this.ev('assistant/message', data, { surfaceOp: 'append', sourceEventSeqs: Array.from({ length: this.seq - first }, (_, k) => first + k) })
    if (usageWhere === 'message+chunk-after') this.ev('assistant/chunk', { turn, step, chunk: { type: 'usage', usage: this.usage() } })
    return blocks.filter(b => b.type === 'tool-call')
  }
  retry(turn, step, retry) {
    this.ev('llm/retry', { retryId: `r-${turn}-${step}-${retry}`, turn, step, provider: PROVIDER, mode: 'normal', policyKey: '["normal",3]', retry, maxRetries: 3, delayMs: 1000, failure: { message: 'upstream timed out', code: 'TIMEOUT', status: 504 } })
    if (chance(0.8)) this.ev('llm/retry-started', { retryId: `r-${turn}-${step}-${retry}`, turn, step, retry })
  }
  header() { this.ev('request/header', { header: { config: { provider: PROVIDER, model: MODEL }, tools: [{ name: 'bash', description: 'Run', parameters: { type: 'object' } }, { name: 'read', description: 'Read', parameters: { type: 'object' } }] }, reason: 'initial' }) }
  command() {
    const id = `cmd-${this.id}-${this.seq}`
    const name = pick(['compact', 'permission', 'model'])
    this.ev('command/run', { commandId: id, name, source: { kind: 'user' } })
    if (name === 'compact' && chance(0.7)) {
      const cid = `cmp-${this.seq}`
      this.ev('compaction/start', { compactionId: cid, sourceCommandId: id, turn: null })
      if (chance(0.7)) this.ev('compaction/end', { compactionId: cid, sourceCommandId: id, turn: null, ...(chance(0.3) ? { error: 'summary failed' } : {}) })
    }
    if (chance(0.75)) this.ev('command/done', { commandId: id, kind: chance(0.8) ? 'ok' : 'error', text: 'done' })
  }
  turn(turn, { lastTurn }) {
    this.ev('turn/start', { turn })
    const steps = int(1, 3)
    let ended = 'completed'
    for (let step = 1; step <= steps; step++) {
      this.ev('step/start', { turn, step })
      if (step === 1) this.ev('user/message', createUserMessage({ content: [{ type: 'text', text: `prompt ${turn}` }], source: { kind: 'user' } }), { surfaceOp: 'append' })
      this.header()
      if (chance(0.25)) {  // retries: a failed attempt first, sometimes recovered
        if (chance(0.5)) this.model(turn, step, [], { finish: 'error', failure: { message: 'reset', code: 'STREAM_RESET' }, interrupted: chance(0.5) })
        for (let r = 1, n = int(1, 3); r <= n; r++) this.retry(turn, step, r)
        if (chance(0.3)) { ended = 'error'; break }
      }
      const calls = this.model(turn, step, Array.from({ length: step === steps ? 0 : int(0, 2) }, (_, k) => `call_${this.id}_${turn}_${step}_${k}`))
      for (const c of calls) {
        if (chance(0.15)) this.ev('approval/asked', { id: `ap-${c.id}`, toolName: c.name, callId: c.id, reason: 'writes' })
        if (chance(0.15)) this.ev('approval/decided', { id: `ap-${c.id}`, decision: pick(['allow', 'deny']) })
        const call = this.ev('tool/call', { turn, step, callId: c.id, name: c.name, arguments: c.args })
        const isError = chance(0.2)
        const data = { turn, step, message: createToolResultMessage({ callId: c.id, content: [{ type: 'text', text: isError ? 'boom' : 'ok' }], isError }) }
        if (isError && chance(0.5)) data.error = { name: 'ToolError', code: 'EXIT_1' }
        this.ev('tool/result', data, { surfaceOp: 'append', sourceEventSeqs: [call.seq] })
      }
      if (chance(0.1)) this.ev('assistant/chunk', { turn, step: int(1, step), chunk: { type: 'usage', usage: this.usage() } })  // a sample that comes back
      this.ev('step/end', { turn, step })
    }
    if (chance(0.1)) ended = pick(['aborted', 'error'])
    const reason = ended === 'completed' ? { kind: 'completed' } : ended === 'error' ? { kind: 'error', error: { message: 'upstream timed out', code: 'TIMEOUT' } } : { kind: 'aborted', reason: { kind: pick(['user', 'timeout']) } }
    this.ev('turn/end', { turn, reason })
  }
}

function body(plan, { firstTurn = 1 } = {}) {
  const turns = int(1, 4)
  for (let t = firstTurn; t < firstTurn + turns; t++) {
    if (chance(0.15)) plan.command()
    plan.turn(t, { lastTurn: t === firstTurn + turns - 1 })
  }
  if (chance(0.1)) plan.command()
}

/** Append a plan's events (to the crash point) in random batches: each batch is one zstd frame. */
async function write(ctx, id, events) {
  for (let i = 0; i < events.length;) {
    const n = int(1, 12)
    await ctx.sessionPersistence.append(SessionId(id), events.slice(i, i + n))
    i += n
  }
}

const crashAt = events => chance(0.45) ? int(0, events.length) : events.length

const manifest = {}
const roots = { zstd: join(OUT, 'zstd'), raw: join(OUT, 'raw') }
await rm(OUT, { recursive: true, force: true })
await mkdir(OUT, { recursive: true })
const count = Number(COUNT)
for (const [kind, root] of Object.entries(roots)) {
  const compression = kind === 'zstd' ? 'zstd' : 'none'
  const n = kind === 'zstd' ? Math.ceil(count / 2) : Math.floor(count / 2)
  let ctx = await mount(root, compression)
  const made = []
  for (let k = 0; k < n; k++) {
    const id = `s${SEED}-${kind}-${k}`
    const m = manifest[`${kind}/${id}`] = { root: kind, id, did: [] }
    const lineage = pick(['plain', 'plain', 'plain', 'child', 'fork', 'resumed'])
    const parent = made.length ? pick(made) : null
    let meta = { version: 0, id: SessionId(id), createdAt: T0 + k, cwd: CWD, delegationDepth: 0 }
    if (lineage === 'child' && parent) { meta = { ...meta, parentSession: parent, origin: 'subagent', delegationDepth: 1 }; m.did.push('child') }
    if (lineage === 'fork' && parent) {
      await ctx.fiber.dispose(); ctx = await mount(root, compression)
      let seed
      try { seed = (await ctx.sessionPersistence.inspect(SessionId(parent))).events } catch { seed = null }
      if (seed) {
        const s = ctx.sessions.create(id, { seed, meta: { cwd: CWD, parentSession: parent, seedLength: seed.length, delegationDepth: 0, createdAt: T0 + k } })
        await ctx.sessions.flush(s)
        await ctx.fiber.dispose(); ctx = await mount(root, compression)
        const p = new Plan(id, (await ctx.sessionPersistence.inspect(SessionId(id))).events.length)  // after dsh's seed rows
        body(p, { firstTurn: 100 })
        try { await write(ctx, id, p.events.slice(0, crashAt(p.events))) } catch (e) { m.did.push('write-refused') }
        m.did.push('fork'); made.push(id); continue
      }
    }
    await ctx.sessionPersistence.create(meta)
    const p = new Plan(id)
    body(p)
    const cut = crashAt(p.events)
    if (cut < p.events.length) m.did.push(`crash@${cut}`)
    await write(ctx, id, p.events.slice(0, cut))
    if (lineage === 'resumed' && cut < p.events.length && chance(0.8)) {
      await ctx.fiber.dispose(); ctx = await mount(root, compression)
      try {
        const prep = await ctx.sessionPersistence.prepare(SessionId(id))
        const s = prep.session
        ctx.sessions.enter(s); ctx.sessions.announce(s)
        s.append('turn/start', { turn: 50 })
        s.append('step/start', { turn: 50, step: 1 })
        s.append('user/message', createUserMessage({ content: [{ type: 'text', text: 'again' }], source: { kind: 'user' } }), { surfaceOp: 'append' })
        if (chance(0.5)) { s.append('step/end', { turn: 50, step: 1 }); s.append('turn/end', { turn: 50, reason: { kind: 'completed' } }) }
        await ctx.sessions.flush(s)
        m.did.push('resumed')
      } catch (e) { m.did.push('resume-failed') }
      await ctx.fiber.dispose(); ctx = await mount(root, compression)
    }
    made.push(id)
  }
  await ctx.fiber.dispose()
  // damage, after every write (dsh's writer never damages a log; disks and crashes and hands do)
  let breaker = false
  for (const key of Object.keys(manifest).filter(k => k.startsWith(kind + '/'))) {
    const m = manifest[key]
    if (!chance(0.4)) continue
    const path = logPath(root, m.id, compression)
    let buf
    try { buf = await readFile(path) } catch { continue }
    if (compression === 'none') {
      const text = buf.toString('latin1')
      const lines = text.split('\n'); lines.pop()
      if (lines.length < 3) continue
      const at = int(1, lines.length - 1)
      const how = pick(['garbage', 'blank', 'drop', 'duplicate', 'torn', 'flip', 'swap'])
      if (how === 'garbage') lines.splice(at, 0, '{"type":"tool/call","seq":' + at + ',"ti')
      else if (how === 'blank') lines.splice(at, 0, '')
      else if (how === 'drop') lines.splice(at, 1)
      else if (how === 'duplicate') lines.splice(at, 0, lines[at])
      else if (how === 'swap' && at + 1 < lines.length) [lines[at], lines[at + 1]] = [lines[at + 1], lines[at]]
      else if (how === 'flip') { const l = lines[at]; const j = int(0, l.length - 1); lines[at] = l.slice(0, j) + String.fromCharCode(l.charCodeAt(j) ^ (1 << int(0, 6))) + l.slice(j + 1) }
      let out = lines.join('\n') + '\n'
      if (how === 'torn') out = out.slice(0, out.length - int(1, Math.min(60, lines[lines.length - 1].length)))
      await writeFile(path, Buffer.from(out, 'latin1'))
      m.did.push(`raw-${how}@line${at + 1}`)
    } else {
      const frames = frameList(buf)
      if (frames.length < 2) continue
      const how = pick(['flip', 'torn', 'torn', 'garbage', 'bad-line', 'bad-line', ...(chance(0.2) ? ['merge-header'] : [])])
      if (how === 'merge-header') {
        if (breaker) continue
        breaker = true  // one a root: dsh's listing of the root fails on the first
        const text = Buffer.concat([zstdDecompressSync(buf.subarray(0, frames[0])), zstdDecompressSync(buf.subarray(frames[0], frames[1]))])
        await writeFile(path, Buffer.concat([zstdCompressSync(text, CHECKSUM), buf.subarray(frames[1])]))
      } else if (how === 'flip') {
        const j = int(frames[0], buf.length - 1)
        buf[j] ^= 1 << int(0, 7)
        await writeFile(path, buf)
      } else if (how === 'torn') {
        await writeFile(path, buf.subarray(0, int(frames[frames.length - 2], buf.length - 1)))
      } else if (how === 'garbage') {
        await writeFile(path, Buffer.concat([buf, Buffer.from('trailing garbage')]))
      } else {  // a bad line inside one frame, re-framed with its checksum
        const f = int(1, frames.length - 1)
        const start = frames[f - 1], end = frames[f]
        const lines = zstdDecompressSync(buf.subarray(start, end)).toString('utf8').split('\n'); lines.pop()
        lines.splice(int(0, lines.length), 0, pick(['{"type":"tool/ca', '', 'not json']))
        await writeFile(path, Buffer.concat([buf.subarray(0, start), zstdCompressSync(lines.join('\n') + '\n', CHECKSUM), buf.subarray(end)]))
      }
      m.did.push(`zstd-${how}`)
    }
  }
}
await writeFile(join(OUT, 'manifest.json'), JSON.stringify(manifest, null, 1))
console.log(Object.keys(manifest).length, 'sessions')

/** The end offset of each zstd frame (the structure dsh's scan walks). */
function frameList(buf) {
  const ends = []
  let off = 0
  while (off + 6 <= buf.length && buf.readUInt32LE(off) === 0xFD2FB528) {
    let p = off + 4
    const fhd = buf[p++]
    const single = (fhd & 32) !== 0
    p += (single ? 0 : 1) + [0, 1, 2, 4][fhd & 3] + ((fhd >> 6) === 0 ? (single ? 1 : 0) : 1 << (fhd >> 6))
    for (;;) {
      if (p + 3 > buf.length) return ends
      const h = buf.readUIntLE(p, 3); p += 3
      p += ((h >> 1) & 3) === 1 ? 1 : h >> 3
      if (h & 1) break
    }
    p += (fhd & 4) ? 4 : 0
    if (p > buf.length) return ends
    ends.push(p)
    off = p
  }
  return ends
}
