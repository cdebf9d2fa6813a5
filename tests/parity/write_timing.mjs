// Writes the timing cases with dsh's own session writer (the published @deepseek-ai packages pinned in
// ../shared/dsh-reference), with real sleeps, so the log's clocks hold known delays. Run it from a copy of
// that folder after `npm install`:
//   node write_timing.mjs OUT_DIR
// OUT_DIR/zstd is a sessions root written with compression on. Unlike write_cases.mjs the times are not
// fixed: `session.append` stamps each event with Date.now(), as dsh does, and the sleeps below are the
// delays tests/unit/test_timing.py expects to read back (at least the sleep, at most the sleep plus
// the scheduling slack). Every id is chosen here. DELAYS (printed as JSON) lists them.
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@deepseek-ai/dsh-session'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import { createUserMessage, createAssistantMessage, createToolResultMessage } from '@deepseek-ai/dsh-llm'
import { rm, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

const OUT = process.argv[2]
const CWD = '/home/user/timing'
const PROVIDER = 'deepseek-official'
const MODEL = 'deepseek-v4-flash'

// The known delays, in ms (what the test reads back from the log).
export const DELAYS = {
  ttft: 300, // request/header -> first output chunk (step 1)
  stall: 400, // between two text deltas of step 2 (in one write batch: a packed row's dt)
  looseStall: 250, // between two loose deltas of step 2's tool call (each delta flushed alone)
  approval: 300, // approval/asked -> approval/decided
  tool: 500, // tool/call -> tool/result (includes the approval wait)
  retry: 250, // llm/retry -> llm/retry-started (step 3)
  command: 200, // command/run -> command/done
}

async function mount(root, extra = {}) {
  const ctx = new Context()
  await ctx.plugin(SessionStore)
  // A long batching window keeps a streamed run in one write batch, so it is packed into a row.
  await ctx.plugin(JsonlSessionPersistence, { root, compression: 'zstd', writeBatchMaxDelayMs: 2000, ...extra })
  return ctx
}

function header(session) {
  session.append('request/header', {
    header: { config: { provider: PROVIDER, model: MODEL },
      tools: [{ name: 'bash', description: 'Run a command', parameters: { type: 'object' } }] },
    reason: 'initial',
  })
}

/** A streamed text block: `pieces` deltas, `pause[k]` ms slept before delta k (default 1 ms). */
async function textBlock(session, ctx, turn, step, index, pieces, pause = {}, flushEach = false) {
  const chunk = (c) => session.append('assistant/chunk', { turn, step, chunk: c })
  chunk({ type: 'block-start', index, blockType: 'text' })
  for (const [k, piece] of pieces.entries()) {
    await sleep(pause[k] ?? 1)
    chunk({ type: 'text-delta', index, text: piece })
    if (flushEach) await ctx.sessions.flush(session)
  }
  chunk({ type: 'block-end', index, block: { type: 'text', text: pieces.join('') } })
}

function finish(session, turn, step, kind, content, usage) {
  session.append('assistant/chunk', { turn, step, chunk: { type: 'usage', usage } })
  session.append('assistant/chunk', { turn, step, chunk: { type: 'finish', reason: { kind } } })
  const message = createAssistantMessage({ content, source: { provider: PROVIDER, model: MODEL } })
  session.append('assistant/message', { turn, step, message, usage }, { surfaceOp: 'append' })
}

async function timedSession(root) {
  const ctx = await mount(root)
  const session = ctx.sessions.create('timed', { meta: { cwd: CWD, delegationDepth: 0 } })
  // a slash command outside any turn
  session.append('command/run', { commandId: 'cmd-timed-1', name: 'permission', args: ' workspace-write', source: { kind: 'user' } })
  await sleep(DELAYS.command)
  session.append('command/done', { commandId: 'cmd-timed-1', kind: 'success', text: 'Permission preset: workspace-write.' })
  await ctx.sessions.flush(session)

  session.append('turn/start', { turn: 1 })
  // step 1: a slow first token
  session.append('step/start', { turn: 1, step: 1 })
  session.append('user/message', createUserMessage({ content: [{ type: 'text', text: 'Say hello slowly.' }], source: { kind: 'user' } }), { surfaceOp: 'append' })
  header(session)
  await ctx.sessions.flush(session)
  await sleep(DELAYS.ttft)
  await textBlock(session, ctx, 1, 1, 0, ['Hel', 'lo', ',', ' there', '.'])
  finish(session, 1, 1, 'stop', [{ type: 'text', text: 'Hello, there.' }], { inputTokens: 30, outputTokens: 5 })
  session.append('step/end', { turn: 1, step: 1 })
  await ctx.sessions.flush(session)

  // step 2: a stall inside a packed run, then a tool call whose deltas are loose, with a stall between them
  session.append('step/start', { turn: 1, step: 2 })
  header(session)
  await ctx.sessions.flush(session)
  await textBlock(session, ctx, 1, 2, 0, ['I', ' will', ' list', ' the', ' files', '.'], { 3: DELAYS.stall })
  await ctx.sessions.flush(session)
  const callId = 'call_timed_ls'
  const args = ['{"com', 'mand":', '"ls"}']
  session.append('assistant/chunk', { turn: 1, step: 2, chunk: { type: 'block-start', index: 1, blockType: 'tool-call' } })
  for (const [k, piece] of args.entries()) {
    await sleep(k === 2 ? DELAYS.looseStall : 1)
    session.append('assistant/chunk', { turn: 1, step: 2, chunk: { type: 'tool-call-delta', index: 1, id: callId, ...(k === 0 ? { name: 'bash' } : {}), argumentsDelta: piece } })
    await ctx.sessions.flush(session)
  }
  session.append('assistant/chunk', { turn: 1, step: 2, chunk: { type: 'block-end', index: 1, block: { type: 'tool-call', id: callId, name: 'bash', arguments: args.join('') } } })
  finish(session, 1, 2, 'tool-calls', [{ type: 'text', text: 'I will list the files.' },
    { type: 'tool-call', id: callId, name: 'bash', arguments: args.join('') }], { inputTokens: 60, outputTokens: 12 })
  await ctx.sessions.flush(session)
  // the tool: an approval wait inside it
  const call = session.append('tool/call', { turn: 1, step: 2, callId, name: 'bash', arguments: args.join('') })
  session.append('approval/asked', { id: 'approval-timed-1', toolName: 'bash', callId, reason: 'runs a command' })
  await ctx.sessions.flush(session)
  await sleep(DELAYS.approval)
  session.append('approval/decided', { id: 'approval-timed-1', outcome: 'allowed-once' })
  await sleep(DELAYS.tool - DELAYS.approval)
  session.append('tool/result', { turn: 1, step: 2,
    message: createToolResultMessage({ callId, content: [{ type: 'text', text: 'a.txt\nb.txt' }], isError: false }) },
  { surfaceOp: 'append', sourceEventSeqs: [call.seq] })
  session.append('step/end', { turn: 1, step: 2 })
  await ctx.sessions.flush(session)

  // step 3: a retry with a known wait, then the answer
  session.append('step/start', { turn: 1, step: 3 })
  header(session)
  await ctx.sessions.flush(session)
  await sleep(5)
  session.append('llm/retry', { retryId: 'retry-timed-1', turn: 1, step: 3, provider: PROVIDER, mode: 'normal',
    policyKey: '["normal",2]', retry: 1, maxRetries: 2, delayMs: DELAYS.retry,
    failure: { message: 'upstream timed out', code: 'TIMEOUT', status: 504 } })
  await ctx.sessions.flush(session)
  await sleep(DELAYS.retry)
  session.append('llm/retry-started', { retryId: 'retry-timed-1', turn: 1, step: 3, retry: 1 })
  await textBlock(session, ctx, 1, 3, 0, ['Two', ' files', ':', ' a.txt', ' and', ' b.txt', '.'])
  finish(session, 1, 3, 'stop', [{ type: 'text', text: 'Two files: a.txt and b.txt.' }], { inputTokens: 80, outputTokens: 7 })
  session.append('step/end', { turn: 1, step: 3 })
  session.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
  await ctx.sessions.flush(session)
  await ctx.fiber.dispose()
}

await rm(OUT, { recursive: true, force: true })
await mkdir(join(OUT, 'zstd'), { recursive: true })
await timedSession(join(OUT, 'zstd'))
console.log(JSON.stringify(DELAYS))
