/**
 * One failure, one issue (issue 34): a failed request and the page's own console.error that
 * reports it in the same moment are one finding — the request, carrying the message — by time
 * (same page, within 2 s after the answer) and content (status, path, or a failure word with
 * a word of the path). Anything else stays its own finding.
 */
import { describe, expect, it } from 'vitest'
import { analyzeEvents } from '@/lib/analysis'
import { REPORT_WINDOW_MS, reportsFailure, sameMoment } from '@/lib/analysis/reported-failures'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'

const ORIGIN = 'https://shop.example.com'
const DOC = page([el(10, 'button', { id: 'pay' }, [txt(11, 'Pay')]), el(12, 'div', { id: 'out' })])
const RESPONSE = { attributes: [{ id: 12, attributes: { class: 'busy' } }] }
const CHECKOUT = `${ORIGIN}/api/checkout`

/** On /checkout the user clicks Pay and the checkout request answers 500. */
function checkoutFails(): SessionBuilder {
  return new SessionBuilder()
    .load(`${ORIGIN}/checkout`, DOC)
    .wait(1000)
    .click(10)
    .mutation(RESPONSE)
    .request({ url: CHECKOUT, method: 'POST', status: 500, duration: 120 })
}

const settle = (b: SessionBuilder) => b.wait(40_000).mouseMove()

async function kindsOf(b: SessionBuilder) {
  const { findings, summary } = await analyzeEvents(settle(b).events)
  return { findings, kinds: findings.map((f) => f.kind), summary }
}

describe('a console error reporting a failed request joins it', () => {
  it('console.error("Checkout failed", 500) right after the 500: one finding, with the message', async () => {
    const { findings, kinds, summary } = await kindsOf(
      checkoutFails().wait(5).console('error', ['Checkout failed', 500]),
    )
    expect(kinds).toEqual(['network_error'])
    expect(findings[0]!.evidence.consoleErrors).toEqual(['Checkout failed 500'])
    expect(findings[0]!.description).toContain('The page logged it too: console.error “Checkout failed 500”.')
    // The failure is counted once, as the request.
    expect(summary.errorCount).toBe(0)
  })

  it('also when the message is recorded before the request event (its body was still being read)', async () => {
    const b = new SessionBuilder().load(`${ORIGIN}/checkout`, DOC).wait(1000).click(10).mutation(RESPONSE)
    const answered = b.now + 50
    b.wait(60).console('error', ['Checkout failed', 500])
    // The request answered before the log; its event arrives 300 ms later, once the body was read.
    b.wait(300).request({
      url: CHECKOUT,
      method: 'POST',
      status: 500,
      details: { timestamp: answered - 120, duration: 120 },
    })
    const { findings, kinds } = await kindsOf(b)
    expect(kinds).toEqual(['network_error'])
    expect(findings[0]!.evidence.consoleErrors).toEqual(['Checkout failed 500'])
  })

  it('names the request by its path, or says it failed with a word of the path', async () => {
    const byPath = await kindsOf(
      checkoutFails().wait(200).console('error', ['POST /api/checkout went wrong']),
    )
    const byWords = await kindsOf(
      checkoutFails().wait(200).console('error', ['Could not complete checkout: error']),
    )
    expect(byPath.kinds).toEqual(['network_error'])
    expect(byWords.kinds).toEqual(['network_error'])
  })

  it('a repeat of the same failure keeps one finding and keeps each distinct message once', async () => {
    const b = checkoutFails()
      .wait(10)
      .console('error', ['Checkout failed', 500])
      .wait(5000)
      .click(10)
      .mutation(RESPONSE)
      .request({ url: CHECKOUT, method: 'POST', status: 502 })
      .wait(10)
      .console('error', ['Checkout failed', 502])
    const { findings, kinds } = await kindsOf(b)
    expect(kinds).toEqual(['network_error'])
    expect(findings[0]!.occurrences).toBe(2)
    expect(findings[0]!.evidence.consoleErrors).toEqual(['Checkout failed 500', 'Checkout failed 502'])
  })
})

describe('a console error that does not report it stays its own finding', () => {
  it('unrelated text in the same moment', async () => {
    const { kinds } = await kindsOf(
      checkoutFails()
        .wait(10)
        .console('error', ['Cart total is negative', { total: -3 }]),
    )
    expect(kinds.sort()).toEqual(['console_error', 'network_error'])
  })

  it('the same text too late, or on another page', async () => {
    const late = await kindsOf(
      checkoutFails()
        .wait(REPORT_WINDOW_MS + 500)
        .console('error', ['Checkout failed', 500]),
    )
    const elsewhere = await kindsOf(
      checkoutFails()
        .wait(100)
        .navigate(`${ORIGIN}/cart`)
        .wait(100)
        .console('error', ['Checkout failed', 500]),
    )
    expect(late.kinds.sort()).toEqual(['console_error', 'network_error'])
    expect(elsewhere.kinds.sort()).toEqual(['console_error', 'network_error'])
  })

  it('a request that did not fail (a 404 is an answer, not an issue) leaves the log alone', async () => {
    const b = new SessionBuilder()
      .load(`${ORIGIN}/checkout`, DOC)
      .wait(1000)
      .request({ url: CHECKOUT, method: 'POST', status: 404 })
      .wait(10)
      .console('error', ['Checkout failed', 404])
    expect((await kindsOf(b)).kinds).toEqual(['console_error'])
  })
})

describe('the content rule', () => {
  const failure = { status: 500, path: '/api/checkout' }

  it('matches the status as a number of its own, the path, or a failure word with a path word', () => {
    expect(reportsFailure('Checkout failed 500', failure)).toBe(true)
    expect(reportsFailure('request to /api/checkout', failure)).toBe(true)
    expect(reportsFailure('CHECKOUT FAILED', failure)).toBe(true)
    expect(reportsFailure('Loaded 5000 items', failure)).toBe(false)
    expect(reportsFailure('Something failed', failure)).toBe(false)
    expect(reportsFailure('checkout is slow', failure)).toBe(false)
    // `api` and ids name nothing.
    expect(reportsFailure('api error', { status: 0, path: '/api/42' })).toBe(false)
  })

  it('reads only the first 500 characters, in time linear in the text', () => {
    expect(reportsFailure(`${'x'.repeat(600)} 500`, failure)).toBe(false)
    const hostile = `${'a1'.repeat(500_000)}!`
    const started = performance.now()
    expect(reportsFailure(hostile, failure)).toBe(false)
    expect(performance.now() - started).toBeLessThan(50)
  })

  it('times: same visit, from just before the answer to 2 s after it', () => {
    expect(sameMoment({ visit: 1, at: 1000 }, { visit: 1, at: 1000 + REPORT_WINDOW_MS })).toBe(true)
    expect(sameMoment({ visit: 1, at: 1000 }, { visit: 1, at: 1001 + REPORT_WINDOW_MS })).toBe(false)
    expect(sameMoment({ visit: 1, at: 1000 }, { visit: 1, at: 900 })).toBe(true)
    expect(sameMoment({ visit: 1, at: 1000 }, { visit: 1, at: 500 })).toBe(false)
    expect(sameMoment({ visit: 1, at: 1000 }, { visit: 2, at: 1100 })).toBe(false)
  })
})
