// What a resume does to each log's bytes, asked of dsh itself: its load() (the crash repair) on a
// private copy, and where it cut the file. Adds to what ../shared/dsh-reference/dsh-facts.mjs says.
// usage: node dsh-resume.mjs ROOT OUT.json [zstd|none]
// Per session id: {accepted, refusal, size_before, size_after, cut, appended}: `cut` is the byte
// offset dsh's repair truncated the file at (its scanner's committed prefix, or a torn frame's start)
// before it appended its rows; `appended` the bytes it wrote after the cut; null cut: nothing cut.
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import { cp, rm, mkdtemp, writeFile, readFile, readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const [ROOT, OUT, COMPRESSION = 'zstd'] = process.argv.slice(2)
const name = COMPRESSION === 'zstd' ? 'session.jsonl.zstd' : 'session.jsonl'

async function mount(root) {
  const ctx = new Context()
  await ctx.plugin(SessionStore)
  await ctx.plugin(JsonlSessionPersistence, { root, compression: COMPRESSION })
  return ctx
}

/** The longest common prefix of two buffers. */
function common(a, b) {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a[i] === b[i]) i++
  return i
}

/** Where the repair cut: the file after it is before[:cut] + what it appended (whole lines for a raw
 *  log, one new frame for zstd). The common prefix can run past the cut when the appended bytes begin
 *  as the deleted ones did: back off to the line (or frame) boundary the appended part starts at. */
function cutOf(before, after, appendedRows) {
  if (after.equals(before)) return null
  if (after.length < before.length && before.subarray(0, after.length).equals(after)) return after.length  // cut, nothing appended
  let k = common(before, after)
  if (COMPRESSION === 'none') {
    // the appended rows are the last `appendedRows` lines of `after`
    let start = after.length
    for (let n = 0; n < appendedRows; n++) start = after.lastIndexOf(10, start - 2) + 1
    return Math.min(k, start)
  }
  return frameStartAtOrBefore(after, k)
}

function frameStartAtOrBefore(buf, k) {
  let off = 0, last = 0
  while (off < buf.length && off <= k) {
    last = off
    off = frameEnd(buf, off)
  }
  return last
}

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

const out = {}
for (const proj of await readdir(ROOT)) for (const dir of await readdir(join(ROOT, proj))) {
  const tmp = await mkdtemp(join(tmpdir(), 'dshr-'))
  const r = {}
  try {
    // this session alone in a root of its own: another session cannot break its listing
    await cp(join(ROOT, proj, dir), join(tmp, proj, dir), { recursive: true })
    const path = join(tmp, proj, dir, name)
    const before = await readFile(path)
    const ctx = await mount(tmp)
    try {
      const stored = await ctx.sessionPersistence.readFrom(SessionId(dir), 0)
      const loaded = await ctx.sessionPersistence.load(SessionId(dir))
      const after = await readFile(path)
      r.accepted = true
      r.stored_events = stored.events.length
      r.size_before = before.length
      r.size_after = after.length
      const appendedRows = loaded.events.length - stored.events.length
      r.cut = cutOf(before, after, COMPRESSION === 'none' ? appendedRows : 1)
      r.appended = r.cut === null ? 0 : after.length - r.cut
    } catch (error) {
      r.accepted = false
      r.refusal = { name: error.name, message: String(error.message).slice(0, 300) }
    } finally {
      await ctx.fiber.dispose().catch(() => {})
    }
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
  out[dir] = r
}
await writeFile(OUT, JSON.stringify(out, null, 1))
console.log(Object.keys(out).length, 'sessions')
