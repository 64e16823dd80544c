import { describe, expect, it } from 'vitest'
import { exactTime, relativeTime } from '@/app/(dashboard)/_components/time-format'

const now = Date.parse('2026-11-25T12:00:00Z')
const ago = (seconds: number) => new Date(now - seconds * 1000)

describe('the dashboard’s one date style', () => {
  it('reads a moment relatively, past and future, and as a date beyond a month', () => {
    expect(relativeTime(ago(3), now)).toBe('just now')
    expect(relativeTime(ago(45), now)).toBe('45 s ago')
    expect(relativeTime(ago(3 * 60 + 20), now)).toBe('3 min ago')
    expect(relativeTime(ago(5 * 3600), now)).toBe('5 h ago')
    expect(relativeTime(ago(3 * 86_400), now)).toBe('3 d ago')
    expect(relativeTime(ago(-2 * 3600), now)).toBe('in 2 h')
    expect(relativeTime(ago(40 * 86_400), now)).toBe('2026-10-16')
  })

  it('gives the exact moment in UTC to the second for the hover', () => {
    expect(exactTime(new Date('2026-11-25T09:05:07.250Z'))).toBe('2026-11-25 09:05:07 UTC')
  })
})
