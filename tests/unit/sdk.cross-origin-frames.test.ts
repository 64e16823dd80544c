import type { eventWithTime } from '@rrweb/types'
import { describe, expect, it } from 'vitest'
import { askParent, listenToChildFrames } from '@/sdk/src/cross-origin-frames'

/**
 * A window that receives messages from one peer (its parent or its frame), asynchronously as
 * browsers do, and only when the target origin is '*' or its own.
 */
class FakeWindow extends EventTarget {
  parent: FakeWindow = this
  frames: FakeWindow[] = []
  peer: FakeWindow | null = null
  constructor(readonly origin: string) {
    super()
  }
  posted: { data: unknown; targetOrigin: string }[] = []
  postMessage(data: unknown, targetOrigin: string) {
    this.posted.push({ data, targetOrigin })
    if (targetOrigin !== '*' && targetOrigin !== this.origin) return
    const source = this.peer
    setTimeout(() => deliver(this, data, source), 0)
  }
}

/** Dispatches a message at `target` as if `source` had posted it; true when a later listener heard it. */
function deliver(
  target: FakeWindow,
  data: unknown,
  source: FakeWindow | null,
  origin = source?.origin ?? '',
) {
  const event = new MessageEvent('message', { data, origin })
  // Node's MessageEvent takes only ports as `source`; a browser gives the sending window.
  Object.defineProperty(event, 'source', { value: source })
  let heard = false
  const listener = () => {
    heard = true
  }
  target.addEventListener('message', listener)
  target.dispatchEvent(event)
  target.removeEventListener('message', listener)
  return heard
}

function pair(childIsFrame = true) {
  const parent = new FakeWindow('https://shop.example')
  const child = new FakeWindow('https://widget.example')
  child.parent = parent
  child.peer = parent
  parent.peer = child
  if (childIsFrame) parent.frames = [child]
  return { parent: parent as unknown as Window, child: child as unknown as Window, fakes: { parent, child } }
}

const SHOP = ['https://shop.example']

const fullSnapshot = { type: 2, timestamp: 1, data: {} } as unknown as eventWithTime
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function record(child: Window, timeoutMs: number, parentOrigins = SHOP, snapshotEveryMs?: number) {
  const heard: string[] = []
  const detach = askParent(
    child,
    parentOrigins,
    timeoutMs,
    {
      listening: () => heard.push('listening'),
      snapshot: () => heard.push('snapshot'),
      timeout: () => heard.push('timeout'),
    },
    snapshotEveryMs,
  )
  return { heard, detach }
}

describe('the cross-origin frame handshake', () => {
  it('a recording parent answers its frame, and asks for a snapshot whenever it takes one', async () => {
    const { parent, child } = pair()
    const frames = listenToChildFrames(parent)
    const { heard, detach } = record(child, 1000)
    await wait(20)
    expect(heard).toEqual(['listening'])
    frames.plugin.eventProcessor!(fullSnapshot)
    await wait(20)
    frames.plugin.eventProcessor!({ type: 3, timestamp: 2, data: {} } as unknown as eventWithTime)
    frames.plugin.eventProcessor!(fullSnapshot)
    // The second snapshot comes within the frame's second: taken at its end.
    await wait(1100)
    expect(heard).toEqual(['listening', 'snapshot', 'snapshot'])
    detach()
    frames.detach()
  })

  it('a frame that says hello after the parent started is told to snapshot at once', async () => {
    const { parent, child } = pair()
    const frames = listenToChildFrames(parent)
    frames.plugin.eventProcessor!(fullSnapshot)
    const { heard, detach } = record(child, 1000)
    await wait(20)
    expect(heard).toEqual(['listening', 'snapshot'])
    detach()
    frames.detach()
  })

  it('without a recording parent the frame times out and records on its own', async () => {
    const { child } = pair()
    const { heard } = record(child, 60)
    await wait(120)
    expect(heard).toEqual(['timeout'])
  })

  it('the parent answers only its own frames', async () => {
    const { parent, child } = pair(false)
    const frames = listenToChildFrames(parent)
    const { heard } = record(child, 60)
    await wait(120)
    expect(heard).toEqual(['timeout'])
    frames.detach()
  })

  it('a frame says hello only to its parentOrigins, and one whose list lacks the parent records on its own', async () => {
    const { parent, child, fakes } = pair()
    const frames = listenToChildFrames(parent)
    const { heard } = record(child, 60, ['https://other.example', 'https://third.example'])
    await wait(120)
    expect(heard).toEqual(['timeout'])
    expect(new Set(fakes.parent.posted.map((p) => p.targetOrigin))).toEqual(
      new Set(['https://other.example', 'https://third.example']),
    )
    // The parent never heard the hello, so it answered nothing.
    expect(fakes.child.posted).toEqual([])
    frames.detach()
  })

  it('a frame ignores answers from a parent origin it does not trust', async () => {
    const { child, fakes } = pair()
    const { heard } = record(child, 60)
    // A parent of another origin (the frame was embedded elsewhere) answers as a recorder would.
    deliver(fakes.child, { svcReplayFrame: 'listening' }, fakes.parent, 'https://evil.example')
    deliver(fakes.child, { svcReplayFrame: 'snapshot' }, fakes.parent, 'https://evil.example')
    await wait(120)
    expect(heard).toEqual(['timeout'])
  })

  it('a hostile parent asking for snapshots in a loop gets at most one a second', async () => {
    const { child, fakes } = pair()
    const { heard, detach } = record(child, 1000, SHOP, 100)
    for (let i = 0; i < 10; i++) deliver(fakes.child, { svcReplayFrame: 'snapshot' }, fakes.parent)
    expect(heard).toEqual(['listening', 'snapshot'])
    await wait(150)
    // The asks within the window come to one snapshot at its end.
    expect(heard).toEqual(['listening', 'snapshot', 'snapshot'])
    detach()
  })
})

describe("the parent's guard against recording messages", () => {
  const rrweb = (n: number) => ({ type: 'rrweb', event: { type: 5, n }, origin: 'https://widget.example' })

  it('lets through only recording messages of frames that said hello, from the origin they said it from', async () => {
    const { parent, child, fakes } = pair()
    const stranger = new FakeWindow('https://ads.example')
    fakes.parent.frames.push(stranger)
    const frames = listenToChildFrames(parent)
    expect(deliver(fakes.parent, rrweb(1), fakes.child)).toBe(false)
    const { detach } = record(child, 1000)
    await wait(20)
    expect(deliver(fakes.parent, rrweb(2), fakes.child)).toBe(true)
    expect(deliver(fakes.parent, rrweb(3), stranger)).toBe(false)
    // The same window after navigating to another origin.
    expect(deliver(fakes.parent, rrweb(4), fakes.child, 'https://ads.example')).toBe(false)
    // Other messages of the page are none of the guard's business.
    expect(deliver(fakes.parent, { type: 'page-message' }, stranger)).toBe(true)
    detach()
    frames.detach()
    expect(deliver(fakes.parent, rrweb(5), stranger)).toBe(true)
  })

  it('with childOrigins, answers and takes only frames of those origins', async () => {
    const { parent, child, fakes } = pair()
    const frames = listenToChildFrames(parent, { childOrigins: ['https://other.example'] })
    // The widget says hello but is not listed: no answer, so it records on its own...
    const { heard, detach } = record(child, 50)
    await wait(100)
    expect(heard).toEqual(['timeout'])
    // ...and whatever it posts as a recording never reaches rrweb.
    expect(deliver(fakes.parent, rrweb(1), fakes.child)).toBe(false)
    detach()
    frames.detach()
    // Listed, the same frame is answered and taken.
    const listed = listenToChildFrames(parent, { childOrigins: ['https://widget.example'] })
    const again = record(child, 1000)
    await wait(20)
    expect(again.heard).toContain('listening')
    expect(deliver(fakes.parent, rrweb(2), fakes.child)).toBe(true)
    again.detach()
    listed.detach()
  })

  it('drops a frame beyond its events a second, notes the flood once, and asks for a snapshot after', async () => {
    const { parent, child, fakes } = pair()
    let clock = 0
    const floods: string[] = []
    const frames = listenToChildFrames(parent, {
      now: () => clock,
      maxEventsPerSecond: 3,
      onFlood: (origin) => floods.push(origin),
    })
    const heard: string[] = []
    const detach = askParent(child, SHOP, 1000, {
      listening: () => heard.push('listening'),
      snapshot: () => heard.push('snapshot'),
      timeout: () => heard.push('timeout'),
    })
    await wait(20)
    const passed = Array.from({ length: 6 }, (_, i) => deliver(fakes.parent, rrweb(i), fakes.child))
    expect(passed).toEqual([true, true, true, false, false, false])
    expect(floods).toEqual(['https://widget.example'])
    // Saying hello again does not buy a fresh allowance.
    deliver(fakes.parent, { svcReplayFrame: 'hello' }, fakes.child)
    expect(deliver(fakes.parent, rrweb(6), fakes.child)).toBe(false)
    clock = 1000
    expect(deliver(fakes.parent, rrweb(7), fakes.child)).toBe(true)
    await wait(20)
    // The dropped events left the frame's replay incomplete: it is asked for a fresh snapshot.
    expect(heard).toEqual(['listening', 'snapshot'])
    detach()
    frames.detach()
  })
})
