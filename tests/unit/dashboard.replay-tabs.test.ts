import type { eventWithTime } from '@rrweb/types'
import { describe, expect, it } from 'vitest'
import { activeTabAt, splitTabs } from '@/app/(dashboard)/_components/replay-tabs'

const at = (timestamp: number, type: number, windowId?: string, data: unknown = {}) =>
  ({ timestamp, type, data, ...(windowId ? { windowId } : {}) }) as unknown as eventWithTime

describe('the replay of a visit across tabs', () => {
  it('leaves a one-tab session as it is', () => {
    expect(splitTabs([at(1, 4), at(2, 2)], 1, 2)).toBeNull()
    expect(splitTabs([at(1, 4, 'a'), at(2, 2, 'a')], 1, 2)).toBeNull()
  })

  it('frames each tab on the visit timeline and follows the tab the person is in', () => {
    const events = [
      at(100, 4, 'a'),
      at(101, 2, 'a'),
      at(150, 3, 'a', { source: 2 }),
      at(200, 4, 'b'),
      at(201, 2, 'b'),
      // A mutation in tab a (a timer) does not move the person back there.
      at(250, 3, 'a', { source: 0 }),
      at(300, 3, 'a', { source: 2 }),
    ]
    const view = splitTabs(events, 100, 300)!
    expect(view.tabs.map((tab) => tab.label)).toEqual(['Tab 1', 'Tab 2'])
    const b = view.tabs[1]!.events
    expect([b[0]!.timestamp, b.at(-1)!.timestamp]).toEqual([100, 300])
    expect(b.filter((event) => event.type !== 5)).toHaveLength(2)
    expect([100, 199, 200, 260, 300].map((t) => activeTabAt(view, t))).toEqual(['a', 'a', 'b', 'b', 'a'])
  })
})
