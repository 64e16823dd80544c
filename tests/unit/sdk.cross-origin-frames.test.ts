import type { eventWithTime } from '@rrweb/types'
import { describe, expect, it } from 'vitest'
import { askParent, listenToChildFrames } from '@/sdk/src/cross-origin-frames'

/** A window that receives messages from one peer (its parent or its frame), asynchronously as browsers do. */
class FakeWindow extends EventTarget {
  parent: FakeWindow = this
  frames: FakeWindow[] = []
  peer: FakeWindow | null = null
  constructor(readonly origin: string) {
    super()
  }
  postMessage(data: unknown) {
    const source = this.peer
    setTimeout(() => {
      const event = new MessageEvent('message', { data, origin: source?.origin ?? '' })
      // Node's MessageEvent takes only ports as `source`; a browser gives the sending window.
      Object.defineProperty(event, 'source', { value: source })
      this.dispatchEvent(event)
    }, 0)
  }
}

function pair(childIsFrame = true) {
  const parent = new FakeWindow('https://shop.example')
  const child = new FakeWindow('https://widget.example')
  child.parent = parent
  child.peer = parent
  parent.peer = child
  if (childIsFrame) parent.frames = [child]
  return { parent: parent as unknown as Window, child: child as unknown as Window }
}

const fullSnapshot = { type: 2, timestamp: 1, data: {} } as unknown as eventWithTime
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function record(child: Window, timeoutMs: number) {
  const heard: string[] = []
  const detach = askParent(child, timeoutMs, {
    listening: () => heard.push('listening'),
    snapshot: () => heard.push('snapshot'),
    timeout: () => heard.push('timeout'),
  })
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
    await wait(20)
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
})
