import { describe, expect, it } from 'vitest'
import { WindowLease } from '@/sdk/src/lease'
import { SessionManager } from '@/sdk/src/session'
import { memoryStore } from '@/sdk/src/storage'

describe('WindowLease', () => {
  it('tells a copied tab (the other page is alive) from a reload (the old page released it)', () => {
    let now = 0
    let ids = 0
    const device = memoryStore()
    const newId = () => `load-${++ids}`
    const original = new WindowLease(device, () => now, newId, 15_000)
    original.renew('w-1')

    const copy = new WindowLease(device, () => now, newId, 15_000)
    expect(copy.heldByAnother('w-1')).toBe(true)
    expect(original.heldByAnother('w-1')).toBe(false)

    original.release('w-1')
    const reload = new WindowLease(device, () => now, newId, 15_000)
    expect(reload.heldByAnother('w-1')).toBe(false)

    // A page that died without pagehide stops renewing; its lease goes stale.
    reload.renew('w-1')
    now += 15_001
    expect(new WindowLease(device, () => now, newId, 15_000).heldByAnother('w-1')).toBe(false)
  })

  it("a copied tab forks its window and stays in the visit, taking the visit's next sequence", () => {
    let ids = 0
    const tab = memoryStore()
    const deps = {
      tab,
      device: memoryStore(),
      now: () => 1000,
      newId: () => `id-${++ids}`,
      idleTimeoutMs: 60_000,
    }
    const original = new SessionManager(deps, 'https://shop.example/')
    original.reserveSequence()
    original.reserveSequence()
    const copy = new SessionManager(deps, 'https://shop.example/')
    copy.forkWindow()
    expect(copy.windowId).not.toBe(original.windowId)
    expect(copy.current.id).toBe(original.current.id)
    expect(copy.reserveSequence()).toBe(2)
    expect(original.reserveSequence()).toBe(3)
    expect(copy.anonymousId).toBe(original.anonymousId)
  })
})
