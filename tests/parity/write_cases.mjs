// Writes the parity cases with dsh's own session writer (the published @deepseek-ai packages pinned in
// ../shared/dsh-reference). Run it from a copy of that folder after `npm install`:
//   node write_cases.mjs OUT_DIR
// OUT_DIR/zstd is a sessions root written with compression on (every case below), OUT_DIR/raw-edited a
// root written with compression off whose logs are then edited to hold what dsh refuses on load.
// Times are fixed and every id is chosen here, so two runs write the same events.
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import { createUserMessage, createAssistantMessage, createToolResultMessage } from '@deepseek-ai/dsh-llm'
import { rm, mkdir, readFile, writeFile, truncate, stat, appendFile } from 'node:fs/promises'
import { join } from 'node:path'

const OUT = process.argv[2]
const CWD = '/home/user/parity'
const PROJECT = '--home-user-parity--'
const PROVIDER = 'deepseek-official'
const MODEL = 'deepseek-v4-flash'
const T0 = 1790000000000

async function mount(root, compression) {
  const ctx = new Context()
  await ctx.plugin(SessionStore)
  await ctx.plugin(JsonlSessionPersistence, { root, compression, writeBatchMaxDelayMs: 5 })
  return ctx
}

function logPath(root, id, compression) {
  return join(root, PROJECT, id, compression === 'zstd' ? 'session.jsonl.zstd' : 'session.jsonl')
}

/** Events with explicit seq and time, appended in batches (each batch is one zstd frame). */
class Log {
  constructor(ctx, id, meta = {}, start = 0) {
    this.ctx = ctx
    this.id = SessionId(id)
    this.meta = { version: 0, id: this.id, createdAt: T0, cwd: CWD, delegationDepth: 0, ...meta }
    this.seq = start
    this.time = T0 + 100 + start
    this.batch = []
  }
  async create() { await this.ctx.sessionPersistence.create(this.meta); return this }
  ev(type, data, extra = {}) {
    const e = { type, seq: this.seq++, time: this.time++, data, ...extra }
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
  /** A streamed model call: chunks, then the assistant/message listing them. */
  model(turn, step, blocks, { usage, finish = 'tool-calls', messageUsage, interrupted, failure } = {}) {
    const first = this.seq
    blocks.forEach((b, index) => {
      this.ev('assistant/chunk', { turn, step, chunk: { type: 'block-start', index, blockType: b.type } })
      if (b.type === 'tool-call') {
        this.ev('assistant/chunk', { turn, step, chunk: { type: 'tool-call-delta', index, id: b.id, name: b.name, argumentsDelta: b.args } })
        this.ev('assistant/chunk', { turn, step, chunk: { type: 'block-end', index, block: { type: 'tool-call', id: b.id, name: b.name, arguments: b.args } } })
      } else {
        this.ev('assistant/chunk', { turn, step, chunk: { type: 'text-delta', index, text: b.text } })
        this.ev('assistant/chunk', { turn, step, chunk: { type: 'block-end', index, block: { type: 'text', text: b.text } } })
      }
    })
    if (usage) this.ev('assistant/chunk', { turn, step, chunk: { type: 'usage', usage } })
    const reason = failure ? { kind: finish, failure } : { kind: finish }
    this.ev('assistant/chunk', { turn, step, chunk: { type: 'finish', reason } })
    const content = blocks.map(b => b.type === 'tool-call'
      ? { type: 'tool-call', id: b.id, name: b.name, arguments: b.args } : { type: 'text', text: b.text })
    const message = createAssistantMessage({ content, source: { provider: PROVIDER, model: MODEL } })
    const data = { turn, step, message }
    if (messageUsage ?? usage) data.usage = messageUsage ?? usage
    if (interrupted) data.interrupted = true
    const sources = Array.from({ length: this.seq - first }, (_, k) => first + k)
    return this.ev('assistant/message', data, { surfaceOp: 'append', sourceEventSeqs: sources })
  }
  call(turn, step, callId, name, args = '{}') {
    return this.ev('tool/call', { turn, step, callId, name, arguments: args })
  }
  result(turn, step, callId, text, { isError = false, error, callSeq } = {}) {
    const data = { turn, step, message: createToolResultMessage({ callId, content: [{ type: 'text', text }], isError }) }
    if (error) data.error = error
    return this.ev('tool/result', data, { surfaceOp: 'append', ...(callSeq === undefined ? {} : { sourceEventSeqs: [callSeq] }) })
  }
  header(turn, step) {
    return this.ev('request/header', { header: { config: { provider: PROVIDER, model: MODEL },
      tools: [{ name: 'bash', description: 'Run a command', parameters: { type: 'object' } }] }, reason: 'initial' })
  }
  retry(turn, step, retry, maxRetries = 3) {
    return this.ev('llm/retry', { retryId: `retry-${turn}-${step}-${retry}`, turn, step, provider: PROVIDER, mode: 'normal',
      policyKey: '["normal",3]', retry, maxRetries, delayMs: 2000, failure: { message: 'upstream timed out', code: 'TIMEOUT', status: 504 } })
  }
  retryStarted(turn, step, retry) {
    return this.ev('llm/retry-started', { retryId: `retry-${turn}-${step}-${retry}`, turn, step, retry })
  }
  /** A whole completed turn: a prompt, one tool call with a result, then a text answer. */
  completedTurn(turn, callId, usage = { inputTokens: 100, outputTokens: 10 }) {
    this.ev('turn/start', { turn })
    this.ev('step/start', { turn, step: 1 })
    this.user(`prompt ${turn}`)
    this.header(turn, 1)
    this.model(turn, 1, [{ type: 'tool-call', id: callId, name: 'bash', args: '{"command":"ls"}' }], { usage })
    const c = this.call(turn, 1, callId, 'bash', '{"command":"ls"}')
    this.result(turn, 1, callId, 'a.txt', { callSeq: c.seq })
    this.ev('step/end', { turn, step: 1 })
    this.ev('step/start', { turn, step: 2 })
    this.model(turn, 2, [{ type: 'text', text: 'done' }], { finish: 'stop', usage: { inputTokens: 20, outputTokens: 2, cacheReadTokens: 100 } })
    this.ev('step/end', { turn, step: 2 })
    this.ev('turn/end', { turn, reason: { kind: 'completed' } })
  }
  /** The start of a turn up to a model call asking for ``calls`` (ids), nothing after it. */
  askingTurn(turn, calls, step = 1) {
    this.ev('turn/start', { turn })
    this.ev('step/start', { turn, step })
    this.user(`prompt ${turn}`)
    this.header(turn, step)
    return this.model(turn, step, calls.map(id => ({ type: 'tool-call', id, name: 'bash', args: `{"command":"run ${id}"}` })),
      { usage: { inputTokens: 50, outputTokens: 5 } })
  }
}

/** Each case: id -> async (ctx) => void, writing one session into the zstd root. */
const ZSTD = {
  // Rule 3: only calls pending in an open turn get closers.
  async 'two-pending'(ctx) {
    const l = await new Log(ctx, 'two-pending').create()
    l.completedTurn(1, 'call_tp_ok'); await l.flush()
    l.askingTurn(2, ['call_tp_deploy', 'call_tp_tag']); await l.flush()
    l.call(2, 1, 'call_tp_deploy', 'bash'); await l.flush()
  },
  async 'closed-turn-call'(ctx) {
    const l = await new Log(ctx, 'closed-turn-call').create()
    l.askingTurn(1, ['call_ct_1'])
    l.call(1, 1, 'call_ct_1', 'bash')
    l.ev('step/end', { turn: 1, step: 1 })
    l.ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await l.flush()
  },
  async 'step-end-crash'(ctx) {
    const l = await new Log(ctx, 'step-end-crash').create()
    l.askingTurn(1, ['call_se_1'])
    l.call(1, 1, 'call_se_1', 'bash')
    l.ev('step/end', { turn: 1, step: 1 })
    l.ev('step/start', { turn: 1, step: 2 })
    await l.flush()
  },
  async 'reregistered-call'(ctx) {
    const l = await new Log(ctx, 'reregistered-call').create()
    l.askingTurn(1, ['call_rr_1'])
    l.call(1, 1, 'call_rr_1', 'bash')
    l.model(1, 1, [{ type: 'tool-call', id: 'call_rr_1', name: 'bash', args: '{"command":"again"}' }])
    await l.flush()
  },
  async 'call-without-block'(ctx) {
    const l = await new Log(ctx, 'call-without-block').create()
    l.ev('turn/start', { turn: 1 }); l.ev('step/start', { turn: 1, step: 1 }); l.user('hi')
    l.model(1, 1, [{ type: 'text', text: 'thinking' }], { finish: 'stop' })
    l.call(1, 1, 'call_nb_1', 'bash')
    await l.flush()
  },
  async 'call-before-block'(ctx) {
    const l = await new Log(ctx, 'call-before-block').create()
    l.ev('turn/start', { turn: 1 }); l.ev('step/start', { turn: 1, step: 1 }); l.user('hi')
    l.call(1, 1, 'call_cb_1', 'bash')
    l.model(1, 1, [{ type: 'tool-call', id: 'call_cb_1', name: 'bash', args: '{}' }])
    await l.flush()
  },
  async 'result-then-crash'(ctx) {
    const l = await new Log(ctx, 'result-then-crash').create()
    l.askingTurn(1, ['call_rc_1', 'call_rc_2'])
    const c = l.call(1, 1, 'call_rc_1', 'bash')
    l.result(1, 1, 'call_rc_1', 'boom', { isError: true, error: { name: 'ToolError', code: 'EXIT_1' }, callSeq: c.seq })
    await l.flush()
  },
  // Rule 4: a crash during a provider retry.
  async 'retry-wait-crash'(ctx) {
    const l = await new Log(ctx, 'retry-wait-crash').create()
    l.ev('turn/start', { turn: 1 }); l.ev('step/start', { turn: 1, step: 1 }); l.user('hi'); l.header(1, 1)
    l.retry(1, 1, 1)
    await l.flush()
  },
  async 'retry-inflight-crash'(ctx) {
    const l = await new Log(ctx, 'retry-inflight-crash').create()
    l.ev('turn/start', { turn: 1 }); l.ev('step/start', { turn: 1, step: 1 }); l.user('hi'); l.header(1, 1)
    l.retry(1, 1, 1); l.retryStarted(1, 1, 1); l.retry(1, 1, 2); l.retryStarted(1, 1, 2)
    await l.flush()
  },
  async 'retry-recovered'(ctx) {
    const l = await new Log(ctx, 'retry-recovered').create()
    l.ev('turn/start', { turn: 1 }); l.ev('step/start', { turn: 1, step: 1 }); l.user('hi'); l.header(1, 1)
    l.retry(1, 1, 1); l.retryStarted(1, 1, 1)
    l.model(1, 1, [{ type: 'text', text: 'ok' }], { finish: 'stop', usage: { inputTokens: 9, outputTokens: 1 } })
    l.ev('step/end', { turn: 1, step: 1 }); l.ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await l.flush()
  },
  // Rules 4 and 8: a request that failed for good ends its turn with `error`; that is the headline,
  // above a slash command left without command/done.
  async 'retries-then-error'(ctx) {
    const l = await new Log(ctx, 'retries-then-error').create()
    l.ev('command/run', { commandId: 'cmd-parity-1', name: 'compact', source: { kind: 'user' } })
    l.ev('turn/start', { turn: 1 }); l.ev('step/start', { turn: 1, step: 1 }); l.user('hi'); l.header(1, 1)
    l.retry(1, 1, 1); l.retryStarted(1, 1, 1); l.retry(1, 1, 2); l.retryStarted(1, 1, 2)
    l.ev('step/end', { turn: 1, step: 1 })
    l.ev('turn/end', { turn: 1, reason: { kind: 'error', error: { message: 'upstream timed out', code: 'TIMEOUT' } } })
    await l.flush()
  },
  // Rule 7: usage, the last sample of each call wins (the message over its chunk).
  async 'usage-chunk-then-message'(ctx) {
    const l = await new Log(ctx, 'usage-chunk-then-message').create()
    l.ev('turn/start', { turn: 1 }); l.ev('step/start', { turn: 1, step: 1 }); l.user('hi')
    l.model(1, 1, [{ type: 'text', text: 'a' }], { finish: 'stop', usage: { inputTokens: 10, outputTokens: 1 },
      messageUsage: { inputTokens: 10, outputTokens: 7, cacheReadTokens: 3, cacheWriteTokens: 2 } })
    l.ev('step/end', { turn: 1, step: 1 })
    l.ev('step/start', { turn: 1, step: 2 })
    l.ev('assistant/chunk', { turn: 1, step: 2, chunk: { type: 'usage', usage: { inputTokens: 4, outputTokens: 4 } } })
    l.ev('step/end', { turn: 1, step: 2 })
    l.ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await l.flush()
  },
  // Rule 10: event types with a meaning of their own.
  async 'compaction-open-at-crash'(ctx) {
    const l = await new Log(ctx, 'compaction-open-at-crash').create()
    l.completedTurn(1, 'call_co_1')
    l.ev('turn/start', { turn: 2 })
    l.ev('compaction/start', { compactionId: 'cmp-1', turn: 2 })
    await l.flush()
  },
  async 'compaction-error'(ctx) {
    const l = await new Log(ctx, 'compaction-error').create()
    l.completedTurn(1, 'call_ce_1')
    l.ev('command/run', { commandId: 'cmd-ce-1', name: 'compact', source: { kind: 'user' } })
    l.ev('compaction/start', { compactionId: 'cmp-2', sourceCommandId: 'cmd-ce-1', turn: null })
    l.ev('compaction/end', { compactionId: 'cmp-2', sourceCommandId: 'cmd-ce-1', turn: null, error: 'summary request failed: 429' })
    l.ev('command/done', { commandId: 'cmd-ce-1', kind: 'error', text: 'Compaction failed: summary request failed: 429' })
    await l.flush()
  },
  async 'code-dispatch-unfinished'(ctx) {
    const l = await new Log(ctx, 'code-dispatch-unfinished').create()
    l.askingTurn(1, ['call_cd_1'])
    l.call(1, 1, 'call_cd_1', 'run_code', '{"code":"await read()"}')
    l.ev('tool/code-dispatch-start', { rootCallId: 'call_cd_1', parentCallId: 'call_cd_1', subCallId: 'call_cd_1:code:1', name: 'read', arguments: { path: 'a' } })
    await l.flush()
  },
  async 'code-dispatch-error'(ctx) {
    const l = await new Log(ctx, 'code-dispatch-error').create()
    l.askingTurn(1, ['call_cx_1'])
    const c = l.call(1, 1, 'call_cx_1', 'run_code', '{"code":"await read()"}')
    const start = { rootCallId: 'call_cx_1', parentCallId: 'call_cx_1', subCallId: 'call_cx_1:code:1', name: 'read', arguments: { path: 'missing' } }
    l.ev('tool/code-dispatch-start', start)
    l.ev('tool/code-dispatch', { ...start, isError: true, content: [{ type: 'text', text: 'not found: missing' }] })
    l.result(1, 1, 'call_cx_1', 'program failed', { isError: true, callSeq: c.seq })
    l.ev('step/end', { turn: 1, step: 1 }); l.ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await l.flush()
  },
  async 'workflow-failed'(ctx) {
    const l = await new Log(ctx, 'workflow-failed').create()
    l.askingTurn(1, ['call_wf_1'])
    const c = l.call(1, 1, 'call_wf_1', 'workflow', '{"name":"review"}')
    l.ev('tool-workflow/run-start', { runId: 'run-1', name: 'review' })
    l.ev('tool-workflow/agent-start', { runId: 'run-1', seq: 1, label: 'reviewer', childId: 'wf-child-1' })
    l.ev('tool-workflow/agent-end', { runId: 'run-1', seq: 1, outcome: 'failed' })
    l.ev('tool-workflow/agent-start', { runId: 'run-1', seq: 2, label: 'fixer', childId: 'wf-child-2' })
    l.ev('tool-workflow/agent-end', { runId: 'run-1', seq: 2, outcome: 'cancelled' })
    l.ev('tool-workflow/run-end', { runId: 'run-1', stopReason: 'error' })
    l.result(1, 1, 'call_wf_1', 'workflow failed', { isError: true, callSeq: c.seq })
    l.ev('step/end', { turn: 1, step: 1 }); l.ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await l.flush()
  },
  async 'hook-blocked'(ctx) {
    const l = await new Log(ctx, 'hook-blocked').create()
    l.ev('turn/start', { turn: 1 })
    l.ev('hook/invoked', { turn: 1, point: 'UserPromptSubmit', dialect: 'claude-code', handlerId: 'hook-1' })
    l.ev('hook/result', { turn: 1, point: 'UserPromptSubmit', handlerId: 'hook-1', decision: 'block', exitCode: 2, stderrSummary: 'prompt mentions a secret', durationMs: 12.5 })
    l.ev('turn/end', { turn: 1, reason: { kind: 'blocked' } })
    await l.flush()
  },
  async 'goal-blocked'(ctx) {
    const l = await new Log(ctx, 'goal-blocked').create()
    l.completedTurn(1, 'call_gb_1')
    l.ev('goal/change', { kind: 'goal/change', version: 1, operation: 'block', goal: { id: 'goal-1', revision: 2, objective: 'ship it', phase: 'blocked', blockedReason: 'tests keep failing', maxGoalRounds: 5 }, roundsStarted: 3, createdAt: T0, updatedAt: T0 + 5000 })
    await l.flush()
  },
  async 'finish-error-interrupted'(ctx) {
    const l = await new Log(ctx, 'finish-error-interrupted').create()
    l.ev('turn/start', { turn: 1 }); l.ev('step/start', { turn: 1, step: 1 }); l.user('hi'); l.header(1, 1)
    l.model(1, 1, [{ type: 'text', text: 'partial answ' }], { finish: 'error', interrupted: true,
      failure: { message: 'stream reset by peer', code: 'STREAM_RESET' } })
    l.ev('step/end', { turn: 1, step: 1 })
    l.ev('turn/end', { turn: 1, reason: { kind: 'error', error: { message: 'stream reset by peer', code: 'STREAM_RESET' } } })
    await l.flush()
  },
  async 'command-error'(ctx) {
    const l = await new Log(ctx, 'command-error').create()
    l.ev('command/run', { commandId: 'cmd-err-1', name: 'permission', args: ' nonsense', source: { kind: 'user' } })
    l.ev('command/done', { commandId: 'cmd-err-1', kind: 'error', text: 'Unknown preset: nonsense' })
    await l.flush()
  },
  // Issue 36, item 6: a failed attempt (finish error) that a retry of the same request recovered.
  async 'retry-recovered-stream'(ctx) {
    const l = await new Log(ctx, 'retry-recovered-stream').create()
    l.ev('turn/start', { turn: 1 }); l.ev('step/start', { turn: 1, step: 1 }); l.user('hi'); l.header(1, 1)
    l.model(1, 1, [{ type: 'text', text: 'partial' }], { finish: 'error', interrupted: true,
      failure: { message: 'upstream timed out', code: 'TIMEOUT' } })
    l.retry(1, 1, 1); l.retryStarted(1, 1, 1)
    l.model(1, 1, [{ type: 'text', text: 'ok' }], { finish: 'stop', usage: { inputTokens: 9, outputTokens: 1 } })
    l.ev('step/end', { turn: 1, step: 1 }); l.ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await l.flush()
  },
  // Item 6: a /compact left open between turns: its command (a failure) outranks its compaction (a warning).
  async 'compact-open-between-turns'(ctx) {
    const l = await new Log(ctx, 'compact-open-between-turns').create()
    l.completedTurn(1, 'call_cb_ok')
    l.ev('command/run', { commandId: 'cmd-cb-1', name: 'compact', source: { kind: 'user' } })
    l.ev('compaction/start', { compactionId: 'cmp-cb', sourceCommandId: 'cmd-cb-1', turn: null })
    await l.flush()
  },
  // Item 3: the meter replaces a sample only when it follows one of the same (turn, step).
  async 'usage-step-comes-back'(ctx) {
    const l = await new Log(ctx, 'usage-step-comes-back').create()
    l.ev('turn/start', { turn: 1 }); l.ev('step/start', { turn: 1, step: 1 }); l.user('hi')
    l.model(1, 1, [{ type: 'text', text: 'a' }], { finish: 'stop', usage: { inputTokens: 10, outputTokens: 1 } })
    l.ev('step/end', { turn: 1, step: 1 }); l.ev('step/start', { turn: 1, step: 2 })
    l.model(1, 2, [{ type: 'text', text: 'b' }], { finish: 'stop', usage: { inputTokens: 20, outputTokens: 2 } })
    l.ev('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'usage', usage: { inputTokens: 11, outputTokens: 3 } } })
    l.ev('step/end', { turn: 1, step: 2 }); l.ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await l.flush()
  },
  async 'usage-chunk-after-message'(ctx) {
    const l = await new Log(ctx, 'usage-chunk-after-message').create()
    l.ev('turn/start', { turn: 1 }); l.ev('step/start', { turn: 1, step: 1 }); l.user('hi')
    l.model(1, 1, [{ type: 'text', text: 'a' }], { finish: 'stop', usage: { inputTokens: 10, outputTokens: 1 } })
    l.ev('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'usage', usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 4 } } })
    l.ev('step/end', { turn: 1, step: 1 }); l.ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await l.flush()
  },
  // Item 4: a callId holding a lone surrogate; dsh's closer names it with the \ud83d escape.
  async 'lone-surrogate-call'(ctx) {
    const l = await new Log(ctx, 'lone-surrogate-call').create()
    l.askingTurn(1, ['call_\ud83d_x'])
    await l.flush()
  },
  async 'approval-undecided-crash'(ctx) {
    const l = await new Log(ctx, 'approval-undecided-crash').create()
    l.askingTurn(1, ['call_ap_1'])
    l.call(1, 1, 'call_ap_1', 'bash', '{"command":"rm -rf build"}')
    l.ev('approval/asked', { id: 'approval-1', toolName: 'bash', callId: 'call_ap_1', reason: 'writes outside the workspace' })
    await l.flush()
  },
}

/** Lineage (rules 1, 2, 6, 7): a source session, its subagent child, a depth-only child, and a fork. */
async function lineage(root) {
  const ctx = await mount(root, 'zstd')
  const src = await new Log(ctx, 'src').create()
  src.completedTurn(1, 'call_src_1', { inputTokens: 300, outputTokens: 30 }); await src.flush()
  const child = await new Log(ctx, 'src-child', { parentSession: 'src', origin: 'subagent', delegationDepth: 1, createdAt: T0 + 10 }).create()
  child.ev('turn/start', { turn: 1 })
  child.ev('subagent/descriptor', { version: 2, mode: 'one-shot', provider: 'spawn', label: 'List files' })
  child.ev('step/start', { turn: 1, step: 1 }); child.user('list')
  child.model(1, 1, [{ type: 'text', text: 'a.txt' }], { finish: 'stop', usage: { inputTokens: 7, outputTokens: 1 } })
  child.ev('step/end', { turn: 1, step: 1 }); child.ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
  await child.flush()
  const depthOnly = await new Log(ctx, 'src-depth-only', { parentSession: 'src', delegationDepth: 1, createdAt: T0 + 20 }).create()
  depthOnly.ev('turn/start', { turn: 1 }); depthOnly.ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
  await depthOnly.flush()
  const seed = (await ctx.sessionPersistence.inspect(SessionId('src'))).events
  await ctx.fiber.dispose()
  // The fork: dsh's own fork seeding (session/end-seed after the seed), then a crash in turn 2.
  const ctx2 = await mount(root, 'zstd')
  const fork = ctx2.sessions.create('src-fork', { seed, meta: { cwd: CWD, parentSession: 'src', seedLength: seed.length, delegationDepth: 0, createdAt: T0 + 30 } })
  await ctx2.sessions.flush(fork)
  await ctx2.fiber.dispose()
  const ctx3 = await mount(root, 'zstd')
  const tail = new Log(ctx3, 'src-fork', {}, seed.length + 1)
  tail.askingTurn(2, ['call_fork_rm'])
  tail.call(2, 1, 'call_fork_rm', 'bash', '{"command":"rm notes.txt"}')
  await tail.flush()
  await ctx3.fiber.dispose()
}

/** Rule 6: a crashed session resumed by a second process (dsh's prepare writes the repair, the
 *  resumed session adds session/end-seed), once completing and once crashing again. */
async function resumed(root) {
  for (const [id, crashAgain] of [['resumed', false], ['resumed-crashed-again', true]]) {
    let ctx = await mount(root, 'zstd')
    const l = await new Log(ctx, id).create()
    l.completedTurn(1, `call_${id}_1`); await l.flush()
    l.askingTurn(2, [`call_${id}_2`]); await l.flush()
    l.call(2, 1, `call_${id}_2`, 'bash'); await l.flush()
    await ctx.fiber.dispose()
    ctx = await mount(root, 'zstd')
    const prep = await ctx.sessionPersistence.prepare(SessionId(id))
    const s = prep.session
    ctx.sessions.enter(s)
    ctx.sessions.announce(s)
    s.append('turn/start', { turn: 3 })
    s.append('step/start', { turn: 3, step: 1 })
    s.append('user/message', createUserMessage({ content: [{ type: 'text', text: 'again' }], source: { kind: 'user' } }), { surfaceOp: 'append' })
    const message = createAssistantMessage({ content: [{ type: 'tool-call', id: `call_${id}_3`, name: 'bash', arguments: '{}' }], source: { provider: PROVIDER, model: MODEL } })
    s.append('assistant/message', { turn: 3, step: 1, message, usage: { inputTokens: 11, outputTokens: 3 } }, { surfaceOp: 'append', sourceEventSeqs: [] })
    const call = s.append('tool/call', { turn: 3, step: 1, callId: `call_${id}_3`, name: 'bash', arguments: '{}' })
    if (!crashAgain) {
      s.append('tool/result', { turn: 3, step: 1, message: createToolResultMessage({ callId: `call_${id}_3`, content: [{ type: 'text', text: 'ok' }], isError: false }) }, { surfaceOp: 'append', sourceEventSeqs: [call.seq] })
      s.append('step/end', { turn: 3, step: 1 })
      s.append('turn/end', { turn: 3, reason: { kind: 'completed' } })
    }
    await ctx.sessions.flush(s)
    await ctx.fiber.dispose()
  }
}

/** Rule 9: torn tails. The last frame holds only the tool/call; cut it inside its block, and (apart)
 *  inside its 4-byte checksum, where dsh still recovers the record. */
async function torn(root) {
  for (const [id, cut] of [['torn-call', 'block'], ['torn-call-checksum', 'checksum']]) {
    const ctx = await mount(root, 'zstd')
    const l = await new Log(ctx, id).create()
    l.completedTurn(1, `call_${id}_ok`); await l.flush()
    l.askingTurn(2, [`call_${id}_a`, `call_${id}_b`]); await l.flush()
    const before = (await stat(logPath(root, id, 'zstd'))).size
    l.call(2, 1, `call_${id}_a`, 'bash', '{"command":"make deploy"}'); await l.flush()
    await ctx.fiber.dispose()
    const path = logPath(root, id, 'zstd')
    const size = (await stat(path)).size
    await truncate(path, cut === 'checksum' ? size - 2 : before + Math.floor((size - before) / 2))
  }
}

/** Issue 36, items 1 and 2: damage in the middle of a log, on both sides of dsh's line. A raw log with
 *  a bad line or a seq gap and no later turn/end loads: its repair cuts the file at the line and deletes
 *  every record after it. With a later turn/end dsh refuses it; inside a complete zstd frame always. */
const DAMAGED = {
  // crashed in turn 2 after call_a's result and call_b's tool/call; the damage lies before call_a's tool/call
  'raw-bad-line-resume': { compression: 'none', damage: 'garbage', turnEnd: false },
  'raw-blank-line-resume': { compression: 'none', damage: 'blank', turnEnd: false },
  'raw-gap-resume': { compression: 'none', damage: 'drop', turnEnd: false },
  'raw-bad-line-refused': { compression: 'none', damage: 'garbage', turnEnd: true },
  // past the cut dsh's load checks see nothing: an unknown required type there is no refusal
  'raw-bad-line-unknown-after': { compression: 'none', damage: 'garbage', turnEnd: false, unknownAfter: true },
  'raw-gap-refused': { compression: 'none', damage: 'drop', turnEnd: true },
  'zstd-bad-line-refused': { compression: 'zstd', damage: 'garbage', turnEnd: true },
  'zstd-bad-line-no-end': { compression: 'zstd', damage: 'garbage', turnEnd: false },
}

async function damaged(root, compression) {
  // written uncompressed (the same JSONL text the writer frames), edited, and for zstd framed as dsh
  // frames it: the header alone in the first frame, the body in one complete checksummed frame
  const plain = compression === 'zstd' ? root + '-plain' : root
  const ctx = await mount(plain, 'none')
  const marks = {}
  const ids = Object.keys(DAMAGED).filter(id => DAMAGED[id].compression === compression)
  for (const id of ids) {
    const c = DAMAGED[id]
    const l = await new Log(ctx, id).create()
    l.completedTurn(1, `call_${id}_1`); await l.flush()
    l.askingTurn(2, [`call_${id}_a`, `call_${id}_b`])
    const a = l.call(2, 1, `call_${id}_a`, 'bash', '{"command":"make"}')
    marks[id] = a.seq  // the damage goes before call_a's tool/call: its call and result lie after it
    l.result(2, 1, `call_${id}_a`, 'built', { callSeq: a.seq })
    l.call(2, 1, `call_${id}_b`, 'bash', '{"command":"deploy"}')
    if (c.unknownAfter) l.ev('acme/telemetry', { n: 1 })
    if (c.turnEnd) {
      l.result(2, 1, `call_${id}_b`, 'deployed')
      l.ev('step/end', { turn: 2, step: 1 }); l.ev('turn/end', { turn: 2, reason: { kind: 'completed' } })
    }
    await l.flush()
  }
  await ctx.fiber.dispose()
  const { zstdCompressSync, constants } = await import('node:zlib')
  const opts = { params: { [constants.ZSTD_c_checksumFlag]: 1 } }
  for (const id of ids) {
    const lines = (await readFile(logPath(plain, id, 'none'), 'utf8')).split('\n'); lines.pop()
    const header = lines.shift()
    const body = editLines(lines, marks[id], DAMAGED[id].damage).join('\n') + '\n'
    if (compression === 'none') {
      await writeFile(logPath(root, id, 'none'), header + '\n' + body)
    } else {
      await mkdir(join(root, PROJECT, id), { recursive: true })
      await writeFile(logPath(root, id, 'zstd'), Buffer.concat([zstdCompressSync(header + '\n', opts), zstdCompressSync(body, opts)]))
    }
  }
  if (plain !== root) await rm(plain, { recursive: true, force: true })
}

/** The event lines with damage before the record of seq ``at``: a garbage line, a blank line, or that record dropped. */
function editLines(lines, at, damage) {
  const k = lines.findIndex(line => JSON.parse(line).seq === at)
  if (k < 0) throw new Error(`no record with seq ${at}`)
  if (damage === 'drop') return [...lines.slice(0, k), ...lines.slice(k + 1)]
  return [...lines.slice(0, k), damage === 'blank' ? '' : '{"type":"tool/call","seq":' + at + ',"ti', ...lines.slice(k)]
}

/** Item 5: a session whose first zstd frame holds more than the header line breaks dsh's listing of its
 *  whole root (a root of its own here: it would hide every other case). */
async function listingBreaker(root) {
  const ctx = await mount(root, 'zstd')
  for (const id of ['lb-good', 'lb-one-frame']) {
    const l = await new Log(ctx, id).create()
    l.completedTurn(1, `call_${id}`); await l.flush()
  }
  await ctx.fiber.dispose()
  // the same session's frames decoded and written back as one frame (header and body together)
  const { zstdDecompressSync, zstdCompressSync, constants } = await import('node:zlib')
  const path = logPath(root, 'lb-one-frame', 'zstd')
  const buf = await readFile(path)
  const headerEnd = frameEnd(buf, 0)
  const text = Buffer.concat([zstdDecompressSync(buf.subarray(0, headerEnd)), zstdDecompressSync(buf.subarray(headerEnd))])
  await writeFile(path, zstdCompressSync(text, { params: { [constants.ZSTD_c_checksumFlag]: 1 } }))
}

/** The end of the zstd frame starting at ``start`` (its blocks walked, as dsh's frame scan does). */
function frameEnd(buf, start) {
  let off = start + 4
  const fhd = buf[off++]
  const single = (fhd & 32) !== 0, dict = [0, 1, 2, 4][fhd & 3], fcs = fhd >> 6
  off += (single ? 0 : 1) + dict + (fcs === 0 ? (single ? 1 : 0) : 1 << fcs)
  for (;;) {
    const h = buf.readUIntLE(off, 3); off += 3
    off += ((h >> 1) & 3) === 1 ? 1 : h >> 3
    if (h & 1) break
  }
  return off + ((fhd & 4) ? 4 : 0)
}

/** Rule 5: what dsh refuses on load, written in a raw root and then edited (append does not check). */
const EDITED = {
  'bad-replace': l => l.push({ type: 'user/message', seq: l.next, time: l.t, data: createUserMessage({ content: [{ type: 'text', text: 'summary' }], source: { kind: 'plugin', plugin: 'compact', compactionId: 'c-1' } }), surfaceOp: { op: 'replace', start: 900, end: 901 }, sourceEventSeqs: [2] }),
  'extra-envelope-key': l => l.push({ type: 'turn/start', seq: l.next, time: l.t, data: { turn: 2 }, note: 'hand-added' }),
  'fallback-header': l => l.push({ type: 'request/header', seq: l.next, time: l.t, data: { header: { config: { provider: PROVIDER, model: MODEL } }, reason: 'fallback' } }),
  'legacy-mode-set': l => l.push({ type: 'mode/set', seq: l.next, time: l.t, data: { mode: 'plan' } }),
  'legacy-header-delta': l => l.push({ type: 'request/header-delta', seq: l.next, time: l.t, data: { delta: {} } }),
  'malformed-turn-end': l => l.push({ type: 'turn/end', seq: l.next, time: l.t, data: { turn: 2, reason: { kind: 'completed', why: 'x' } } }),
  'surfaceop-on-log-only': l => l.push({ type: 'turn/start', seq: l.next, time: l.t, data: { turn: 2 }, surfaceOp: 'append' }),
  'missing-surfaceop': l => l.push({ type: 'user/message', seq: l.next, time: l.t, data: createUserMessage({ content: [{ type: 'text', text: 'x' }], source: { kind: 'user' } }) }),
  'mismatched-tool-result': l => l.push({ type: 'tool/result', seq: l.next, time: l.t, data: { turn: 1, step: 1, message: { id: 'm-x', role: 'user', source: { kind: 'tool', callId: 'call_a' }, content: [{ type: 'tool-result', toolCallId: 'call_b', content: [] }] } }, surfaceOp: 'append' }),
  'unknown-required-type': l => l.push({ type: 'acme/telemetry', seq: l.next, time: l.t, data: { n: 1 } }),
  'unknown-ignorable-type': l => l.push({ type: 'acme/telemetry', seq: l.next, time: l.t, data: { n: 1 }, ignorable: true }),
}

async function edited(root) {
  const ctx = await mount(root, 'none')
  for (const id of Object.keys(EDITED)) {
    const l = await new Log(ctx, id).create()
    l.completedTurn(1, `call_${id}`); await l.flush()
  }
  await ctx.fiber.dispose()
  for (const [id, edit] of Object.entries(EDITED)) {
    const path = logPath(root, id, 'none')
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n')
    let count = 0
    for (const line of lines.slice(1)) {
      const o = JSON.parse(line)
      count += o.seq0 !== undefined ? (o.data.texts ?? o.data.args).length : 1
    }
    const added = []
    edit({ next: count, t: T0 + 100 + count, push: e => added.push(e) })
    await appendFile(path, added.map(e => JSON.stringify(e)).join('\n') + '\n')
  }
}

await rm(OUT, { recursive: true, force: true })
await mkdir(OUT, { recursive: true })
const zroot = join(OUT, 'zstd')
for (const [id, write] of Object.entries(ZSTD)) {
  const ctx = await mount(zroot, 'zstd')
  await write(ctx)
  await ctx.fiber.dispose()
}
await lineage(zroot)
await resumed(zroot)
await torn(zroot)
await edited(join(OUT, 'raw-edited'))
await damaged(join(OUT, 'raw-edited'), 'none')
await damaged(join(OUT, 'zstd-damaged'), 'zstd')
await listingBreaker(join(OUT, 'zstd-listing'))
console.log('wrote', Object.keys(ZSTD).length + 9, 'zstd sessions and', Object.keys(EDITED).length, 'edited raw sessions')
