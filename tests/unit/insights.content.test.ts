import { describe, expect, it } from 'vitest'
import { insightMarkdown, plainPreview } from '@/lib/insights/content'
import type { IntervalFigures } from '@/lib/insights/figures'
import { findRises, lastInterval } from '@/lib/insights/generate'
import { cronEvery } from '@/lib/jobs/cron'

const figures = (patch: Partial<IntervalFigures> = {}): IntervalFigures => ({
  sessions: 40,
  users: 31,
  medianDurationMs: 95_000,
  friction: { errors: 8, rageClicks: 2, deadClicks: 1, networkFailures: 4 },
  topPages: [{ path: '/checkout', sessions: 20 }],
  topIssues: [{ id: 'a', title: 'TypeError on /checkout', sessions: 8 }],
  newIssues: [{ id: 'a', title: 'TypeError on /checkout' }],
  frictionByPage: [],
  ...patch,
})

describe('insight text and rules', () => {
  it('leads with what changed and states only figures', () => {
    const text = insightMarkdown(
      figures(),
      figures({ sessions: 20, friction: { errors: 1, rageClicks: 0, deadClicks: 0, networkFailures: 0 } }),
      ['JavaScript errors on /checkout rose 4×'],
    )
    expect(text.split('\n')[0]).toBe('# 40 sessions from 31 users')
    expect(text).toContain('**What changed:** JavaScript errors on /checkout rose 4×.')
    expect(text).toContain('JavaScript errors in 20% of sessions (+15 points)')
    expect(text).toContain('Median session length: 1 min 35 s')
    expect(text).toContain('- TypeError on /checkout — 8 sessions')
  })

  it('previews 280 characters of plain text', () => {
    const preview = plainPreview(insightMarkdown(figures(), null, []))
    expect(preview.length).toBeLessThanOrEqual(280)
    expect(preview).not.toMatch(/[#*]/)
    expect(preview.startsWith('40 sessions from 31 users')).toBe(true)
  })

  it('files a rise at 5 sessions and 3 times the previous rate, or when it first appears', () => {
    const row = (sessions: number) => ({ kind: 'rage_click', path: '/checkout', sessions, issueIds: ['x'] })
    expect(
      findRises(figures({ frictionByPage: [row(6)] }), figures({ frictionByPage: [row(1)] })),
    ).toHaveLength(1)
    expect(
      findRises(figures({ frictionByPage: [row(6)] }), figures({ frictionByPage: [row(4)] })),
    ).toHaveLength(0)
    expect(findRises(figures({ frictionByPage: [row(4)] }), null)).toHaveLength(0)
    expect(findRises(figures({ frictionByPage: [row(5)] }), null)).toHaveLength(1)
  })

  it('aligns intervals to their length and schedules in whole minutes for Inngest', () => {
    const interval = lastInterval(Date.UTC(2026, 10, 22, 13, 30), 24)
    expect(interval.start.toISOString()).toBe('2026-11-21T00:00:00.000Z')
    expect(interval.end.toISOString()).toBe('2026-11-22T00:00:00.000Z')
    expect(cronEvery(60)).toBe('*/1 * * * *')
    expect(cronEvery(10)).toBe('*/1 * * * *')
    expect(cronEvery(300)).toBe('*/5 * * * *')
    expect(cronEvery(24 * 3600)).toBe('0 0 * * *')
    expect(cronEvery(6 * 3600)).toBe('0 */6 * * *')
  })
})
