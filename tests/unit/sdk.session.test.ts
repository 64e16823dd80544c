import { describe, expect, it } from 'vitest'
import { ANONYMOUS_KEY, SESSION_KEY, type SessionDeps, SessionManager, WINDOW_KEY } from '@/sdk/src/session'
import { memoryStore } from '@/sdk/src/storage'

function harness(idleTimeoutMs = 30 * 60_000) {
  let now = 1_000_000
  let ids = 0
  const tab = memoryStore()
  const device = memoryStore()
  const deps = {
    tab,
    device,
    now: () => now,
    newId: () => `id-${++ids}`,
    idleTimeoutMs,
  }
  return {
    tab,
    device,
    advance: (ms: number) => {
      now += ms
    },
    now: () => now,
    /** A page load of the same tab (same storages). */
    load: (url = 'https://shop.example/') => new SessionManager(deps, url),
    /** Another tab of the same browser: its own sessionStorage, the shared localStorage. */
    otherTab: (extra: Partial<SessionDeps> = {}) =>
      new SessionManager({ ...deps, tab: memoryStore(), ...extra }, 'https://shop.example/other'),
  }
}

describe('SessionManager', () => {
  it('keeps the session, window and sequence across page loads of one tab', () => {
    const h = harness()
    const first = h.load('https://shop.example/landing')
    expect(first.reserveSequence()).toBe(0)
    expect(first.reserveSequence()).toBe(1)
    h.advance(1000)
    const second = h.load('https://shop.example/cart')
    expect(second.current.id).toBe(first.current.id)
    expect(second.windowId).toBe(first.windowId)
    expect(second.current.url).toBe('https://shop.example/landing')
    expect(second.reserveSequence()).toBe(2)
    expect(second.expired).toBeNull()
  })

  it('persists the next sequence before it is used, so a reload never reuses one', () => {
    const h = harness()
    const page = h.load()
    page.reserveSequence()
    expect(JSON.parse(h.tab.getItem(SESSION_KEY)!).nextSequence).toBe(1)
  })

  it('lets a tab opened while the visit is live join its session, sharing one sequence', () => {
    const h = harness(60_000)
    const live = new Set<string>()
    const withLive = { tab: memoryStore(), liveVisit: (id: string) => live.has(id) }
    const one = h.load()
    live.add(one.current.id)
    expect(one.reserveSequence()).toBe(0)
    h.advance(1000)
    const two = h.otherTab(withLive)
    expect(two.current.id).toBe(one.current.id)
    expect(two.windowId).not.toBe(one.windowId)
    expect(two.current.startedAt).toBe(one.current.startedAt)
    expect(two.reserveSequence()).toBe(1)
    expect(one.reserveSequence()).toBe(2)
    expect(two.reserveSequence()).toBe(3)
    // Activity in tab two keeps tab one's session alive past its own idle time.
    two.touch(h.now() + 50_000, true)
    two.persist()
    h.advance(70_000)
    expect(one.isIdle()).toBe(false)
    // Once no page of the visit is live, a new tab starts a session of its own.
    live.clear()
    expect(h.otherTab({ tab: memoryStore(), liveVisit: (id: string) => live.has(id) }).current.id).not.toBe(
      one.current.id,
    )
  })

  it('does not join a visit that has gone idle; a tab stopped early leaves the others their counter', () => {
    const h = harness(60_000)
    const liveVisit = () => true
    const one = h.load()
    one.reserveSequence()
    h.advance(60_001)
    expect(h.otherTab({ tab: memoryStore(), liveVisit }).current.id).not.toBe(one.current.id)
    const a = h.load()
    const b = h.otherTab({ tab: memoryStore(), liveVisit })
    expect(b.current.id).toBe(a.current.id)
    expect(b.reserveSequence()).toBe(0)
    expect(b.reserveSequence()).toBe(1)
    b.end()
    expect(a.reserveSequence()).toBe(2)
  })

  it('gives another tab its own window and session but the same anonymous id', () => {
    const h = harness()
    const one = h.load()
    const two = h.otherTab()
    expect(two.windowId).not.toBe(one.windowId)
    expect(two.current.id).not.toBe(one.current.id)
    expect(two.anonymousId).toBe(one.anonymousId)
    expect(h.device.getItem(ANONYMOUS_KEY)).toBe(one.anonymousId)
    expect(h.tab.getItem(WINDOW_KEY)).toBe(one.windowId)
  })

  it('starts a new session at sequence 0 when a page loads after the idle timeout, and reports the old one', () => {
    const h = harness(60_000)
    const first = h.load()
    first.reserveSequence()
    first.reserveSequence()
    first.touch(h.now(), true)
    h.advance(60_001)
    const next = h.load('https://shop.example/again')
    expect(next.current.id).not.toBe(first.current.id)
    expect(next.reserveSequence()).toBe(0)
    expect(next.current.startedAt).toBe(h.now())
    expect(next.expired).toMatchObject({ id: first.current.id, nextSequence: 2 })
    expect(next.windowId).toBe(first.windowId)
  })

  it('counts only user activity towards the idle timeout', () => {
    const h = harness(60_000)
    const session = h.load()
    h.advance(50_000)
    session.touch(h.now(), false)
    h.advance(20_000)
    expect(session.isIdle()).toBe(true)
    session.touch(h.now(), true)
    expect(session.isIdle()).toBe(false)
    expect(session.current.lastEventAt).toBe(h.now())
  })

  it('rotates to a new session that keeps the identified user; end() forgets the session', () => {
    const h = harness()
    const session = h.load()
    session.identify('user-1', { email: 'ada@example.com' })
    const oldId = session.current.id
    session.reserveSequence()
    const ended = session.rotate('https://shop.example/back')
    expect(ended.id).toBe(oldId)
    expect(session.current).toMatchObject({
      nextSequence: 0,
      userId: 'user-1',
      url: 'https://shop.example/back',
    })
    expect(session.current.id).not.toBe(oldId)
    session.end()
    expect(h.tab.getItem(SESSION_KEY)).toBeNull()
    expect(h.load().current.id).not.toBe(session.current.id)
  })

  it('ignores a damaged stored session', () => {
    const h = harness()
    h.tab.setItem(SESSION_KEY, '{"id": 5')
    const session = h.load()
    expect(session.current.nextSequence).toBe(0)
    expect(session.expired).toBeNull()
  })
})
