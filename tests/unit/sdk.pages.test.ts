import { describe, expect, it } from 'vitest'
import { SessionPages } from '@/sdk/src/pages'
import { memoryStore } from '@/sdk/src/storage'

describe('SessionPages', () => {
  it('tells the last live page of a session when it leaves, not the others', () => {
    const now = 0
    let ids = 0
    const device = memoryStore()
    const newId = () => `load-${++ids}`
    const first = new SessionPages(device, () => now, newId, 15_000)
    const second = new SessionPages(device, () => now, newId, 15_000)
    first.beat('s-1')
    second.beat('s-1')
    expect(first.leave('s-1')).toBe(false)
    expect(second.leave('s-1')).toBe(true)
    // Nothing is left behind for a session no page holds.
    expect(device.getItem('svc_replay:pages:s-1')).toBeNull()
  })

  it('does not count a page that stopped beating (crashed) as live', () => {
    let now = 0
    let ids = 0
    const device = memoryStore()
    const newId = () => `load-${++ids}`
    const crashed = new SessionPages(device, () => now, newId, 15_000)
    const alive = new SessionPages(device, () => now, newId, 15_000)
    crashed.beat('s-1')
    alive.beat('s-1')
    now += 10_000
    alive.beat('s-1')
    now += 10_000
    expect(alive.leave('s-1')).toBe(true)
  })

  it('moves a page to its new session when the old one ended, and survives garbage in storage', () => {
    let ids = 0
    const device = memoryStore()
    const newId = () => `load-${++ids}`
    const other = new SessionPages(device, () => 0, newId, 15_000)
    const page = new SessionPages(device, () => 0, newId, 15_000)
    other.beat('s-1')
    page.beat('s-1')
    page.beat('s-2')
    expect(other.leave('s-1')).toBe(true)
    device.setItem('svc_replay:pages:s-3', '{not json')
    expect(page.leave('s-3')).toBe(true)
    device.setItem('svc_replay:pages:s-4', JSON.stringify({ a: 'x', b: null }))
    expect(page.leave('s-4')).toBe(true)
  })
})
