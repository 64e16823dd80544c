/**
 * Honest blocking (issue 15): a problem raises priority only when what the user did next on
 * that page shows they could not go on — the same click again, or leaving within 30 s without
 * doing anything else — and every finding says why it got its priority.
 */
import { describe, expect, it } from 'vitest'
import { analyzeEvents } from '@/lib/analysis'
import { FOLLOW_UP_MS, FollowUps } from '@/lib/analysis/follow-up'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'
import { withBreadth } from '@/lib/issues/record-findings'

const ORIGIN = 'https://shop.example.com'
const DOC = page([
  el(10, 'button', { id: 'pay' }, [txt(11, 'Pay')]),
  el(12, 'a', { id: 'cart', href: '/cart' }, [txt(13, 'Cart')]),
  el(14, 'input', { id: 'coupon', type: 'text' }),
  el(15, 'div', { id: 'out' }),
])
const RESPONSE = { attributes: [{ id: 15, attributes: { class: 'busy' } }] }
const PAY_ERROR = "TypeError: Cannot read properties of null (reading 'total')"

/** On /product (not a critical path), the user clicks Pay and an uncaught error follows. */
function payFails(): SessionBuilder {
  return new SessionBuilder()
    .load(`${ORIGIN}/product`, DOC)
    .wait(1000)
    .click(10)
    .mutation(RESPONSE)
    .uncaught(PAY_ERROR)
}

async function only(b: SessionBuilder) {
  const { findings } = await analyzeEvents(b.events)
  expect(findings).toHaveLength(1)
  return findings[0]!
}

describe('what the user did next decides blocking', () => {
  it('the same click again within 30 s is a retry: blocking', async () => {
    const finding = await only(payFails().wait(2000).click(10).mutation(RESPONSE).wait(40_000).mouseMove())
    expect(finding).toMatchObject({
      priority: 'critical',
      evidence: { blocking: true, retried: true, followUp: 'retried' },
    })
    expect(finding.priorityReason).toMatch(
      /^Uncaught errors start at high; \+1 blocking: the user tried again \(clicked “Pay” \(#pay\) 2\.\d s later\)\.$/,
    )
  })

  it('leaving the page within 30 s without doing anything else: blocking', async () => {
    const navigated = await only(payFails().wait(5000).navigate(`${ORIGIN}/home`).wait(40_000).mouseMove())
    expect(navigated).toMatchObject({ priority: 'critical', evidence: { blocking: true, followUp: 'left' } })
    expect(navigated.priorityReason).toContain(
      'the user left the page 5.0 s later without doing anything else',
    )
    const closed = await only(payFails().wait(4000).mouseMove())
    expect(closed.priorityReason).toContain('+1 blocking: the session ended 4.0 s later')
  })

  it('going on — another click (even one that leads elsewhere) or typing — is not blocking', async () => {
    // The user of issue 15: clicked Pay, then went to the cart.
    const toCart = await only(
      payFails().wait(3000).click(12).navigate(`${ORIGIN}/cart`).wait(40_000).mouseMove(),
    )
    expect(toCart).toMatchObject({ priority: 'high', evidence: { blocking: false, followUp: 'went_on' } })
    expect(toCart.priorityReason).toMatch(
      /^Uncaught errors start at high; not blocking: the user went on \(clicked “Cart” \(#cart\) 3\.\d s later\)\.$/,
    )
    const typed = await only(payFails().wait(1500).type(14, 'SUMMER', false).wait(5000).mouseMove())
    expect(typed.evidence.followUp).toBe('went_on')
    expect(typed.priorityReason).toContain('typed into')
  })

  it('a page that ends less than a second later is not a reaction: not blocking', async () => {
    const finding = await only(payFails().wait(200).mouseMove())
    expect(finding).toMatchObject({ priority: 'high', evidence: { blocking: false, followUp: 'too_soon' } })
  })

  it('staying more than 30 s without acting tells nothing: not blocking', async () => {
    const idle = await only(payFails().wait(35_000).mouseMove())
    const lateRetry = await only(payFails().wait(35_000).click(10).mutation(RESPONSE).wait(2000).mouseMove())
    expect(idle.evidence.followUp).toBe('stayed')
    expect(lateRetry.evidence.followUp).toBe('stayed')
    expect([idle.priority, lateRetry.priority]).toEqual(['high', 'high'])
  })

  it('a double click is one attempt, not a retry', async () => {
    const finding = await only(
      payFails().wait(100).click(10).mutation(RESPONSE).wait(5000).click(15).wait(40_000).mouseMove(),
    )
    expect(finding.evidence.followUp).toBe('went_on')
  })

  it('a rage burst is the problem, not its own retry; what follows the burst decides', async () => {
    const burst = (b: SessionBuilder) => {
      for (let i = 0; i < 5; i++) b.wait(200).click(10)
      return b
    }
    const wentOn = await analyzeEvents(
      burst(new SessionBuilder().load(`${ORIGIN}/editor`, DOC).wait(1000))
        .wait(3000)
        .click(15)
        .wait(40_000)
        .mouseMove().events,
    )
    const left = await analyzeEvents(
      burst(new SessionBuilder().load(`${ORIGIN}/editor`, DOC).wait(1000))
        .wait(3000)
        .mouseMove().events,
    )
    expect(wentOn.findings.map((f) => [f.kind, f.evidence.followUp])).toEqual([['rage_click', 'went_on']])
    expect(left.findings.map((f) => [f.kind, f.evidence.followUp, f.priority])).toEqual([
      ['rage_click', 'left', 'critical'],
    ])
  })

  it('a dead click reported 7 s late still sees the click that came before the report', async () => {
    // The second click is on a plain block: no response, and no dead click of its own.
    const b = new SessionBuilder().load(`${ORIGIN}/product`, DOC).wait(1000).click(10).wait(2000).click(15)
    const { findings } = await analyzeEvents(b.wait(40_000).mouseMove().events)
    expect(findings.map((f) => [f.kind, f.evidence.followUp, f.priority])).toEqual([
      ['dead_click', 'went_on', 'medium'],
    ])
  })

  it('a failed request that later succeeds on the page did not block, even after a retry', async () => {
    const request = { url: `${ORIGIN}/api/save`, method: 'POST' }
    const b = new SessionBuilder()
      .load(`${ORIGIN}/product`, DOC)
      .wait(1000)
      .click(10)
      .mutation(RESPONSE)
      .request({ ...request, status: 500 })
      .wait(2000)
      .click(10)
      .mutation(RESPONSE)
      .request({ ...request, status: 200 })
      .wait(5000)
      .mouseMove()
    const finding = await only(b)
    expect(finding).toMatchObject({ priority: 'high', evidence: { blocking: false, followUp: 'recovered' } })
    expect(finding.priorityReason).toContain('not blocking: the same request succeeded later on the page')
  })

  it('a background request failing repeatedly is not the user retrying', async () => {
    const b = new SessionBuilder().load(`${ORIGIN}/product`, DOC).wait(1000)
    for (let i = 0; i < 3; i++) b.request({ url: `${ORIGIN}/api/feed`, status: 500 }).wait(1000)
    const finding = await only(b.click(15).wait(40_000).mouseMove())
    expect(finding).toMatchObject({ occurrences: 3, priority: 'medium', evidence: { retried: false } })
  })

  it('names the critical path and the third-party adjustment in the reason', async () => {
    const b = new SessionBuilder()
      .load(`${ORIGIN}/checkout`, DOC)
      .wait(1000)
      .request({ url: 'https://widgets.other.io/v1/reviews', status: 500 })
      .wait(3000)
      .mouseMove()
    const finding = await only(b)
    expect(finding.priority).toBe('high')
    expect(finding.priorityReason).toBe(
      'A failed background request starts at medium; +1: /checkout is a critical path; +1 blocking: the session ended 3.0 s later with nothing else done on the page; −1: it comes from another site.',
    )
  })
})

describe('FollowUps bounds (events are attacker-written)', () => {
  it('keeps one decision per finding whatever the number of actions and page ends', () => {
    const followUps = new FollowUps()
    followUps.watch('a', { visit: 1, since: 0, target: 'button#pay|Pay' })
    for (let i = 1; i <= 100_000; i++) {
      followUps.action({ visit: 1 + (i % 3), at: i, target: `x${i}`, label: 'y'.repeat(10_000) })
      if (i % 1000 === 0) followUps.pageEnded(i, i, 'page')
    }
    const outcome = followUps.outcome('a')
    expect(outcome.kind).toBe('went_on')
    // Labels from the page are cut before they reach any reason.
    expect(outcome.kind === 'went_on' && outcome.label.length).toBeLessThanOrEqual(80)
    const internals = followUps as unknown as { recent: unknown[]; ended: Map<number, unknown> }
    expect(internals.recent.length).toBeLessThanOrEqual(64)
    expect(internals.ended.size).toBeLessThanOrEqual(16)
  })

  it('a blocking occurrence is not undone by a later one that did not block', () => {
    const followUps = new FollowUps()
    followUps.watch('a', { visit: 1, since: 0, target: 't' })
    followUps.action({ visit: 1, at: 2000, target: 't', label: 'clicked t' })
    followUps.watch('a', { visit: 1, since: 3000, target: 't' })
    followUps.action({ visit: 1, at: 4000, target: 'other', label: 'clicked other' })
    expect(followUps.outcome('a').kind).toBe('retried')
    // A request that succeeds on a later page undoes nothing of the earlier page.
    followUps.watch('a', { visit: 3, since: 0, target: null })
    followUps.recovered('a', 3)
    expect(followUps.outcome('a').kind).toBe('retried')
    followUps.watch('b', { visit: 2, since: 0, target: null })
    followUps.pageEnded(2, FOLLOW_UP_MS + 1, 'session')
    expect(followUps.outcome('b').kind).toBe('stayed')
  })
})

describe('the issue layer’s breadth step (§4.5.3)', () => {
  it('is added to the first session’s reason, or stands alone on older issues', () => {
    expect(withBreadth('Console errors start at medium; not blocking: the user stayed.')).toBe(
      'Console errors start at medium; not blocking: the user stayed; +1: seen in 10 sessions within 24 hours.',
    )
    expect(withBreadth(null)).toBe('+1: seen in 10 sessions within 24 hours.')
  })
})
