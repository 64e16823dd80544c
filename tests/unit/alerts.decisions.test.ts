import { describe, expect, it } from 'vitest'
import type { AlertCandidate } from '@/lib/alerts/candidates'
import { nameBasedUuid } from '@/lib/alerts/candidates'
import { nextStep } from '@/lib/alerts/deliver-slack'
import { matchesFilters, windowStartOf } from '@/lib/alerts/filters'
import {
  digestMessage,
  escapeClip,
  escapeMrkdwn,
  retryAfterSeconds,
  type SlackMessage,
  singleAlertMessage,
} from '@/lib/integrations/slack'

const candidate = (overrides: Partial<AlertCandidate> = {}): AlertCandidate => ({
  eventId: '00000000-0000-4000-8000-000000000000',
  issueId: null,
  signalId: null,
  sessionId: '00000000-0000-4000-8000-0000000000aa',
  title: 'TypeError',
  priority: 'high',
  kind: 'js_error',
  pageUrl: 'https://shop.example/Checkout/pay',
  sessions: 1,
  occurrences: 1,
  evidence: null,
  issueUrl: null,
  replayUrl: null,
  ...overrides,
})

const outcome = (status: number | null, label: string | null, retryAfter: number | null = null) => ({
  ok: status !== null && status < 300,
  status,
  label,
  retryAfterSeconds: retryAfter,
  startedAt: new Date(),
  durationMs: 1,
})

describe('alert decisions', () => {
  it('windows are aligned to their length since the epoch', () => {
    expect(windowStartOf(new Date('2026-11-26T12:07:59.999Z'), 10).toISOString()).toBe(
      '2026-11-26T12:00:00.000Z',
    )
    expect(windowStartOf(new Date('2026-11-26T12:10:00.000Z'), 10).toISOString()).toBe(
      '2026-11-26T12:10:00.000Z',
    )
    expect(windowStartOf(new Date('2026-11-26T13:59:00.000Z'), 1440).toISOString()).toBe(
      '2026-11-26T00:00:00.000Z',
    )
  })

  it('filters: every one given must hold; the URL one is a plain, case-insensitive substring', () => {
    expect(matchesFilters({}, candidate())).toBe(true)
    expect(matchesFilters({ priorities: ['critical'] }, candidate())).toBe(false)
    expect(matchesFilters({ kinds: ['js_error'], urlContains: '/checkout/' }, candidate())).toBe(true)
    // A pattern is only text: `.*` matches nothing but itself.
    expect(matchesFilters({ urlContains: '.*' }, candidate())).toBe(false)
    expect(matchesFilters({ urlContains: '/cart' }, candidate({ pageUrl: null }))).toBe(false)
    // A saved search holds only when it found the candidate's session.
    const search = '00000000-0000-4000-8000-0000000000bb'
    const found = new Map([[search, new Set(['00000000-0000-4000-8000-0000000000aa'])]])
    expect(matchesFilters({ savedSearchId: search }, candidate(), found)).toBe(true)
    expect(matchesFilters({ savedSearchId: search }, candidate(), new Map([[search, new Set()]]))).toBe(false)
    expect(matchesFilters({ savedSearchId: search }, candidate())).toBe(false)
    expect(matchesFilters({ savedSearchId: search }, candidate({ sessionId: null }), found)).toBe(false)
  })

  it('event ids of spikes are stable name-based UUIDs (version 5)', () => {
    const a = nameBasedUuid('insight:1:issue:2')
    expect(a).toBe(nameBasedUuid('insight:1:issue:2'))
    expect(a).not.toBe(nameBasedUuid('insight:1:issue:3'))
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  it('Slack outcomes: 429 waits for Retry-After, other 4xx fail at once, 5xx and network errors retry', () => {
    const delays = [10, 60, 300]
    expect(nextStep(outcome(200, null), 0, delays)).toEqual({ status: 'succeeded', retrySeconds: null })
    expect(nextStep(outcome(429, 'rate_limited', 120), 0, delays)).toEqual({
      status: 'pending',
      retrySeconds: 120,
    })
    expect(nextStep(outcome(429, 'rate_limited', 1), 1, delays)).toEqual({
      status: 'pending',
      retrySeconds: 60,
    })
    expect(nextStep(outcome(404, 'bad_status:404'), 0, delays)).toEqual({
      status: 'failed',
      retrySeconds: null,
    })
    expect(nextStep(outcome(503, 'bad_status:503'), 2, delays)).toEqual({
      status: 'pending',
      retrySeconds: 300,
    })
    expect(nextStep(outcome(503, 'bad_status:503'), 3, delays)).toEqual({
      status: 'failed',
      retrySeconds: null,
    })
    expect(nextStep(outcome(null, 'network_error'), 0, delays)).toEqual({
      status: 'pending',
      retrySeconds: 10,
    })
    expect(nextStep(outcome(null, 'url_unsafe'), 0, delays)).toEqual({ status: 'failed', retrySeconds: null })
  })

  it('Retry-After is read in seconds or as an HTTP date', () => {
    expect(retryAfterSeconds('30')).toBe(30)
    expect(retryAfterSeconds('Thu, 26 Nov 2026 12:01:00 GMT', Date.parse('2026-11-26T12:00:00Z'))).toBe(60)
    expect(retryAfterSeconds('soon')).toBeNull()
    expect(retryAfterSeconds(null)).toBeNull()
  })
})

describe('Slack text', () => {
  it('escapes the characters Slack parses, so no mention or link can be injected', () => {
    expect(escapeMrkdwn('<!channel> <@U123> <https://x|y> & co')).toBe(
      '&lt;!channel&gt; &lt;@U123&gt; &lt;https://x|y&gt; &amp; co',
    )
  })

  it('a digest names its top items and counts the rest', () => {
    const message = digestMessage({
      ruleName: 'New issues',
      heading: 'New issues',
      windowStart: new Date('2026-11-26T12:00:00Z'),
      windowMinutes: 10,
      events: 30,
      subjects: 25,
      top: [
        { title: 'A <b>', count: 6, url: 'https://replays.example/issues/a' },
        { title: 'B', count: 1, url: null },
      ],
      historyUrl: null,
    })
    const json = JSON.stringify(message)
    expect(json).toContain('30 events (25 distinct) in the 10 min from 12:00 UTC')
    expect(json).toContain('• <https://replays.example/issues/a|A &lt;b&gt;> ×6\\n• B')
    expect(json).toContain('and 23 more')
    // Our own link is an explicit <url|text>, which Slack keeps under verbatim; nothing else is linked.
    const texts = message.blocks.flatMap((b) =>
      b.type === 'section' ? [b.text, ...(b.fields ?? [])] : b.type === 'context' ? b.elements : [],
    )
    expect(texts.filter((t) => t?.type === 'mrkdwn').map((t) => t && 'verbatim' in t && t.verbatim)).toEqual([
      true,
      true,
      true,
      true,
    ])
    expect(message).toMatchObject({ unfurl_links: false, unfurl_media: false })
  })

  /** Every block text within Slack's limits (section 3000, field 2000), no entity cut in half. */
  function expectWithinLimits(message: SlackMessage) {
    for (const block of message.blocks) {
      const texts =
        block.type === 'section'
          ? [...(block.text ? [block.text.text] : []), ...(block.fields ?? []).map((f) => f.text)]
          : block.type === 'context'
            ? block.elements.map((e) => e.text)
            : []
      for (const text of texts) {
        expect(text.length).toBeLessThanOrEqual(block.type === 'section' && !block.text ? 2000 : 3000)
        expect(text).not.toMatch(/&(?!amp;|lt;|gt;)/)
      }
    }
  }

  it('cuts after escaping, so worst-case titles stay within Slack limits', () => {
    expect(escapeClip('&'.repeat(150), 150)).toBe(`${'&amp;'.repeat(29)}…`)
    expect(escapeClip('a&b', 10)).toBe('a&amp;b')
    for (const ch of ['&', '<', '>']) {
      const worst = ch.repeat(5000)
      expectWithinLimits(
        singleAlertMessage({
          heading: 'New issue',
          ruleName: worst,
          title: worst,
          priority: worst,
          kind: worst,
          sessions: 3,
          occurrences: 4,
          evidence: worst,
          issueUrl: null,
          replayUrl: null,
        }),
      )
      const digest = digestMessage({
        ruleName: worst,
        heading: 'New issues',
        windowStart: new Date('2026-11-26T12:00:00Z'),
        windowMinutes: 10,
        events: 30,
        subjects: 12,
        top: Array.from({ length: 10 }, (_, i) => ({
          title: ch.repeat(150),
          count: 2,
          url: `https://replays.example/issues/${'x'.repeat(200)}${i}`,
        })),
        historyUrl: null,
      })
      expectWithinLimits(digest)
      // What does not fit is counted, never dropped silently.
      const lines = digest.blocks.flatMap((b) =>
        b.type === 'section' && b.text?.text.startsWith('•') ? b.text.text.split('\n') : [],
      )
      expect(JSON.stringify(digest)).toContain(`and ${12 - lines.length} more`)
    }
  })
})
