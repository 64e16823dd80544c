import { describe, expect, it } from 'vitest'
import { ReplayBatch } from '@/lib/ingest/schema'
import { type BatchEnvelope, buildBody, EventBuffer, isUserActivity, sessionEndEvent } from '@/sdk/src/batch'

const envelope: BatchEnvelope = {
  session: {
    id: 's-1',
    windowId: 'w-1',
    startedAt: 1000,
    lastActivityAt: 2000,
    url: 'https://shop.example/',
  },
  user: { anonymousId: 'a-1', id: null, properties: null },
  page: { url: 'https://shop.example/cart', referrer: null, viewport: { width: 1280, height: 800 } },
  metadata: { userAgent: 'test', language: 'en' },
}

const event = (timestamp: number, size = 10) => ({
  type: 3,
  timestamp,
  data: { source: 0, text: 'x'.repeat(size) },
})

describe('EventBuffer', () => {
  it('takes the oldest events within the count limit', () => {
    const buffer = new EventBuffer()
    for (let i = 0; i < 7; i++) buffer.add(event(1000 + i))
    expect(buffer.isFull(5, 1e9)).toBe(true)
    const first = buffer.take(5, 1e9).map((e) => JSON.parse(e).timestamp)
    expect(first).toEqual([1000, 1001, 1002, 1003, 1004])
    expect(buffer.count).toBe(2)
    expect(buffer.take(5, 1e9).map((e) => JSON.parse(e).timestamp)).toEqual([1005, 1006])
    expect(buffer.bytes).toBe(0)
  })

  it('splits by bytes, and an event larger than the limit goes alone', () => {
    const buffer = new EventBuffer()
    buffer.add(event(1, 100))
    buffer.add(event(2, 100))
    buffer.add(event(3, 5000))
    buffer.add(event(4, 100))
    const perEvent = JSON.stringify(event(1, 100)).length
    expect(buffer.take(50, perEvent * 2 + 1)).toHaveLength(2)
    expect(buffer.take(50, perEvent * 2 + 1)).toHaveLength(1)
    expect(buffer.take(50, perEvent * 2 + 1)).toHaveLength(1)
    expect(buffer.count).toBe(0)
  })

  it('pins an event whose clock went backwards to the previous timestamp', () => {
    const buffer = new EventBuffer()
    buffer.add(event(2000))
    buffer.add(event(1500))
    expect(buffer.take(10, 1e9).map((e) => JSON.parse(e).timestamp)).toEqual([2000, 2000])
  })
})

describe('buildBody', () => {
  it('produces exactly the replay batch the ingest API accepts', () => {
    const buffer = new EventBuffer()
    buffer.add(event(1500))
    buffer.add(sessionEndEvent(1600, 'stop'))
    const json = buildBody(envelope, buffer.take(10, 1e9), 7, 'final')
    const body = JSON.parse(json)
    expect(body).toEqual({
      ...envelope,
      replay: {
        events: [
          event(1500),
          { type: 5, timestamp: 1600, data: { tag: 'session_end', payload: { reason: 'stop' } } },
        ],
        sequence: 7,
      },
      flush: 'final',
    })
    expect(ReplayBatch.safeParse(body).success).toBe(true)
  })
})

describe('isUserActivity', () => {
  it('counts page loads, pointer, scroll, input and selection, not mutations, console or network', () => {
    expect(isUserActivity({ type: 2, timestamp: 1, data: {} })).toBe(true)
    expect(isUserActivity({ type: 4, timestamp: 1, data: {} })).toBe(true)
    expect(isUserActivity({ type: 3, timestamp: 1, data: { source: 2 } })).toBe(true)
    expect(isUserActivity({ type: 3, timestamp: 1, data: { source: 5 } })).toBe(true)
    expect(isUserActivity({ type: 3, timestamp: 1, data: { source: 0 } })).toBe(false)
    expect(isUserActivity({ type: 6, timestamp: 1, data: { plugin: 'rrweb/network@1' } })).toBe(false)
    expect(isUserActivity({ type: 5, timestamp: 1, data: { tag: 'error' } })).toBe(false)
  })
})
