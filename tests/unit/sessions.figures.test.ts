/**
 * A session's page and error figures are one count (lib/sessions/session-figures.ts): the
 * sessions list and the summary used to disagree on a session that revisits a page and logs
 * console errors (list: 4 pages, 5 errors; summary: "3 pages … 2 errors").
 */
import { describe, expect, it } from 'vitest'
import { analyzeEvents } from '@/lib/analysis'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'
import { sessionFigures } from '@/lib/sessions/session-figures'
import { deterministicSummary } from '@/lib/sessions/session-summary'
import { entryFacts } from '@/lib/sessions/summary-facts'
import { toSessionListItem } from '@/lib/sessions/views'

const ORIGIN = 'https://shop.example.com'
const DOC = page([el(10, 'button', { id: 'pay' }, [txt(11, 'Pay')])])

/** Four page views of three addresses (one revisited by SPA navigation), two thrown errors and three console errors. */
function session(): SessionBuilder {
  return new SessionBuilder()
    .load(`${ORIGIN}/cart`, DOC)
    .uncaught('TypeError: price is undefined')
    .wait(2000)
    .navigate(`${ORIGIN}/checkout`)
    .console('error', ['Checkout failed', 500])
    .wait(2000)
    .console('error', ['Payment widget timed out'])
    .wait(2000)
    .navigate(`${ORIGIN}/cart`)
    .uncaught('RangeError: quantity out of range')
    .wait(2000)
    .navigate(`${ORIGIN}/thanks`)
    .console('error', ['Analytics blocked'])
    .wait(2000)
    .mouseMove()
}

describe('session figures', () => {
  it('the list item and the summary give the same pages and errors', async () => {
    const { summary, trail } = await analyzeEvents(session().events)
    const row = { pageCount: summary.pageCount, errorCount: summary.errorCount }
    expect(sessionFigures(row)).toEqual({ pages: 4, errors: 5 })

    const item = toSessionListItem({
      id: '00000000-0000-4000-8000-000000000001',
      userId: null,
      userEmail: null,
      userName: null,
      anonymousId: 'anon',
      entryUrl: `${ORIGIN}/cart`,
      durationMs: 10_000,
      rageClickCount: 0,
      startedAt: new Date(0),
      lastActivityAt: new Date(10_000),
      status: 'processed',
      eventCount: 20,
      userAgent: null,
      release: null,
      degraded: false,
      automation: null,
      ...row,
    })
    const text = deterministicSummary(entryFacts(trail.entries), sessionFigures(row))
    expect([item.pageCount, item.errorCount]).toEqual([4, 5])
    expect(text).toContain('The user visited 4 pages (3 addresses): /cart, /checkout, /thanks.')
    expect(text).toContain('What went wrong: 5 errors (first: “TypeError: price is undefined”)')
  })

  it('names the first error even when only console errors happened', async () => {
    const b = new SessionBuilder().load(`${ORIGIN}/`, DOC).console('error', ['Checkout failed', 500])
    const { summary, trail } = await analyzeEvents(b.events)
    const text = deterministicSummary(
      entryFacts(trail.entries),
      sessionFigures({ pageCount: summary.pageCount, errorCount: summary.errorCount }),
    )
    expect(text).toBe('The user visited 1 page: /. What went wrong: 1 error (first: “Checkout failed 500”).')
  })

  it('falls back to counting the facts when a session has no stored figures', () => {
    const facts = entryFacts([
      { kind: 'navigation', at: 1, pageUrl: `${ORIGIN}/`, url: `${ORIGIN}/`, change: 'load' },
      { kind: 'navigation', at: 2, pageUrl: `${ORIGIN}/a`, url: `${ORIGIN}/a`, change: 'navigation' },
    ])
    expect(deterministicSummary(facts, { pages: null, errors: null })).toBe(
      'The user visited 2 pages: /, /a. No error, failed request, rage or dead click was detected.',
    )
  })
})
