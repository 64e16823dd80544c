/**
 * js_error and console_error (docs/design/analysis.md §4.3), with the event shapes of §1.7 (stock console
 * plugin) and §4.1 (our SDK's `error` custom event), and error-after-click linking.
 */
import { describe, expect, it } from 'vitest'
import { analyzeEvents } from '@/lib/analysis'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'

const HREF = 'https://shop.example.com/products/42'
const DOC = page([
  el(10, 'button', { id: 'buy', class: 'btn' }, [txt(11, 'Buy now')]),
  el(12, 'div', { id: 'out' }),
])
const TRACE = [
  'addToCart (https://shop.example.com/assets/app.3f9a2c1d.js:13:48)',
  'HTMLButtonElement.onBuyNow (https://shop.example.com/assets/app.3f9a2c1d.js:21:3)',
]
const STACK = `TypeError: Cannot read properties of undefined (reading 'price')\n    at addToCart (https://shop.example.com/assets/app.3f9a2c1d.js:13:48)\n    at HTMLButtonElement.onBuyNow (https://shop.example.com/assets/app.3f9a2c1d.js:21:3)`
// The page answers the click, so no dead click joins the findings.
const RESPONSE = { attributes: [{ id: 12, attributes: { class: 'busy' } }] }
const PRICE = "TypeError: Cannot read properties of undefined (reading 'price')"

function session(href = HREF): SessionBuilder {
  return new SessionBuilder().load(href, DOC).wait(1000)
}

/** Keeps the session going on the same page, so the blocking adjustment (§4.5) stays out. */
function settle(b: SessionBuilder): SessionBuilder {
  return b.wait(31_000).mouseMove()
}

async function run(b: SessionBuilder) {
  return analyzeEvents(b.events)
}

describe('js_error from the stock console plugin (§1.7)', () => {
  it('reports `Uncaught ` errors with type, message, stack and high priority', async () => {
    const { findings, summary } = await run(settle(session().uncaught(PRICE, TRACE)))
    expect(findings).toHaveLength(1)
    expect(findings[0]).toMatchObject({
      kind: 'js_error',
      priority: 'high',
      pathPattern: '/products/:id',
      occurrences: 1,
      trigger: null,
      title: "TypeError: Cannot read properties of undefined (reading 'price') on /products/:id",
    })
    expect(findings[0]!.evidence).toMatchObject({ type: 'TypeError', mechanism: 'onerror', stack: TRACE })
    expect(summary.errorCount).toBe(1)
  })

  it('reports unhandled rejections, with an Error or with another reason', async () => {
    const b = settle(
      session()
        .console('error', ['Uncaught (in promise) TypeError: Failed to fetch'], TRACE)
        .wait(2000)
        .console('error', ['Uncaught (in promise)', { reason: 'nope' }]),
    )
    const { findings } = await run(b)
    expect(findings.map((f) => [f.evidence.mechanism, f.evidence.message])).toEqual([
      ['onunhandledrejection', 'Failed to fetch'],
      ['onunhandledrejection', '{"reason":"nope"}'],
    ])
  })

  it('groups `Script error.` per page at low priority, even on a critical path', async () => {
    const b = new SessionBuilder()
      .load('https://shop.example.com/checkout', DOC)
      .console('error', ['Script error.'])
      .wait(2000)
      .console('error', ['Script error.'])
      .load('https://shop.example.com/cart', DOC)
      .console('error', ['Script error.'])
    const { findings } = await run(b)
    expect(findings.map((f) => [f.pathPattern, f.occurrences, f.priority])).toEqual([
      ['/checkout', 2, 'low'],
      ['/cart', 1, 'low'],
    ])
  })

  it('drops ResizeObserver loop messages and errors from browser extensions (§4.3 guards)', async () => {
    const b = settle(
      session()
        .console('error', ['ResizeObserver loop completed with undelivered notifications.'])
        .wait(2000)
        .uncaught('TypeError: x is not a function', ['inject (chrome-extension://abcdef/content.js:1:1)'])
        .wait(2000)
        .sdkError('Error', 'boom', 'Error: boom\n    at run (moz-extension://x/y.js:1:1)'),
    )
    expect((await run(b)).findings).toEqual([])
  })
})

describe("js_error from our SDK's error event (§4.1)", () => {
  it('reports it, and ignores handled errors', async () => {
    const b = settle(
      session()
        .sdkError('TypeError', "Cannot read properties of undefined (reading 'price')", STACK)
        .wait(2000),
    ).emit(5, { tag: 'error', payload: { type: 'Error', message: 'handled', stack: '', handled: true } })
    const { findings } = await run(b)
    expect(findings).toHaveLength(1)
    expect(findings[0]!.evidence).toMatchObject({ source: 'sdk', type: 'TypeError' })
  })

  it('counts an error once when both the SDK and the console plugin report it, in either order', async () => {
    const b = settle(
      session()
        .sdkError('TypeError', "Cannot read properties of undefined (reading 'price')", STACK)
        .uncaught(PRICE, TRACE)
        .wait(3000)
        .uncaught(PRICE, TRACE)
        .sdkError('TypeError', "Cannot read properties of undefined (reading 'price')", STACK),
    )
    const { findings, summary, digest } = await run(b)
    expect(findings).toHaveLength(1)
    expect(findings[0]!.occurrences).toBe(2)
    expect(summary.errorCount).toBe(2)
    expect(digest.errors).toHaveLength(2)
  })

  it('gives both sources of the same error the same fingerprint', async () => {
    const fromSdk = await run(
      session().sdkError('TypeError', "Cannot read properties of undefined (reading 'price')", STACK),
    )
    const fromConsole = await run(session().uncaught(PRICE, TRACE))
    expect(fromSdk.findings[0]!.fingerprint).toBe(fromConsole.findings[0]!.fingerprint)
  })
})

describe('console_error (§4.3)', () => {
  it('reports console.error at medium priority; warn, info and log never', async () => {
    const b = settle(
      session()
        .console('log', ['payment widget config', { provider: 'cards' }])
        .console('info', ['[account] loaded'])
        .console('warn', ['billing.v1 is deprecated'])
        .console(
          'error',
          ['Payment widget failed to load', { code: 42 }],
          ['https://shop.example.com/account:37:19'],
        ),
    )
    const { findings } = await run(b)
    expect(findings).toHaveLength(1)
    expect(findings[0]).toMatchObject({
      kind: 'console_error',
      priority: 'medium',
      title: 'Console error: Payment widget failed to load on /products/:id',
    })
    expect(findings[0]!.evidence.arguments).toEqual(['"Payment widget failed to load"', '{"code":42}'])
  })

  it('merges into an uncaught error with the same message within 1 s, before or after it', async () => {
    const b = settle(
      session()
        .console('error', [
          { name: 'TypeError', message: "Cannot read properties of undefined (reading 'price')" },
        ])
        .wait(300)
        .uncaught(PRICE, TRACE)
        .wait(5000)
        .uncaught(PRICE, TRACE)
        .wait(300)
        .console('error', [PRICE]),
    )
    const { findings } = await run(b)
    expect(findings.map((f) => [f.kind, f.occurrences])).toEqual([['js_error', 2]])
  })

  it('stays separate from an uncaught error more than 1 s away', async () => {
    const b = settle(session().console('error', [PRICE]).wait(1500).uncaught(PRICE, TRACE))
    expect((await run(b)).findings.map((f) => f.kind).sort()).toEqual(['console_error', 'js_error'])
  })

  it('groups by the normalised first argument and page; other arguments are evidence', async () => {
    const b = settle(
      session()
        .console('error', ['Order 123 failed', { id: 1 }])
        .wait(2000)
        .console('error', ['Order 456 failed', { id: 2 }])
        .wait(2000)
        .console('error', [{ some: 'object' }])
        .wait(2000)
        .console('error', [{ other: 'object' }]),
    )
    const { findings } = await run(b)
    expect(findings.map((f) => f.occurrences)).toEqual([2, 2])
  })
})

describe('error after click (§4.3 error_after_click)', () => {
  it('links the click ≤ 1 s before the error as trigger, in title and steps', async () => {
    const b = settle(session().click(10).wait(5).uncaught(PRICE, TRACE))
    const [finding] = (await run(b)).findings
    expect(finding!.trigger?.element).toMatchObject({ tag: 'button', id: 'buy', text: 'Buy now' })
    expect(finding!.title).toBe(
      "TypeError: Cannot read properties of undefined (reading 'price') after clicking “Buy now” on /products/:id",
    )
    expect(finding!.stepsToReplicate).toMatch(/2\. Clicked “Buy now” \(#buy\)\n3\. TypeError: .* is thrown/)
    expect(finding!.description).toContain('It followed a click on “Buy now” (#buy).')
  })

  it('does not link a click more than 1 s before', async () => {
    const b = settle(session().click(10).mutation(RESPONSE).wait(1200).uncaught(PRICE, TRACE))
    const { findings } = await run(b)
    expect(findings.map((f) => [f.kind, f.trigger])).toEqual([['js_error', null]])
  })

  it('links console errors too', async () => {
    const b = settle(session().click(10).mutation(RESPONSE).wait(50).console('error', ['Checkout failed']))
    const { findings } = await run(b)
    expect(findings.map((f) => [f.kind, f.trigger?.element.id])).toEqual([['console_error', 'buy']])
  })
})
