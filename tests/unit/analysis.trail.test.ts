/**
 * The session trail the analysis pass records (lib/analysis/trail.ts, docs/agent-timeline.md):
 * every kind of entry from the rrweb events that carry it, repeats collapsed, values masked as
 * the recorder masked them (and passwords always), and every bound held whatever the session
 * holds.
 */
import { describe, expect, it } from 'vitest'
import { analyzeEvents } from '@/lib/analysis'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'
import { CUT_MARKER, type SessionTrail, TRAIL_LIMITS, type TrailEntry } from '@/lib/analysis/trail'
import type { AnalyzerOptions } from '@/lib/analysis/types'
import { loadRecording } from '../helpers/pipeline'

const ORIGIN = 'https://shop.example.com'
const HREF = `${ORIGIN}/checkout`
const DOC = page([
  el(10, 'button', { id: 'pay', 'data-testid': 'pay-button', type: 'submit' }, [txt(11, 'Pay now')]),
  el(12, 'a', { href: '/help?token=abcdef0123456789xyz', class: 'help-link' }, [txt(13, 'Help')]),
  el(14, 'label', { for: 'email' }, [txt(15, 'Email address')]),
  el(16, 'input', { id: 'email', type: 'email' }),
  el(17, 'input', { id: 'password', type: 'password' }),
  el(18, 'input', { id: 'agree', type: 'checkbox', 'aria-label': 'Accept terms' }),
  el(19, 'input', { id: 'r1', type: 'radio', name: 'plan' }),
  el(20, 'div', { role: 'tab', id: 'tab-a' }, [txt(21, 'Details')]),
  el(22, 'select', { id: 'size' }, [el(23, 'option', {}, [txt(24, 'M')])]),
  el(25, 'textarea', { id: 'notes' }, [txt(26, 'private words')]),
  el(27, 'div', { id: 'out' }),
  el(28, 'h2', { id: 'title' }, [txt(29, 'Order')]),
  el(30, 'input', { id: 'q', type: 'search', placeholder: 'Find' }),
])
const RESPONSE = { attributes: [{ id: 27, attributes: { class: 'busy' } }] }

function session(): SessionBuilder {
  return new SessionBuilder().load(HREF, DOC).wait(500)
}

async function trailOf(b: SessionBuilder, options?: AnalyzerOptions): Promise<SessionTrail> {
  return (await analyzeEvents(b.events, options)).trail
}

function ofKind<K extends TrailEntry['kind']>(
  trail: SessionTrail,
  kind: K,
): Extract<TrailEntry, { kind: K }>[] {
  return trail.entries.filter((entry): entry is Extract<TrailEntry, { kind: K }> => entry.kind === kind)
}

describe('navigation', () => {
  it('records page loads and SPA navigations with the page they led to', async () => {
    const b = session()
      .navigate(`${ORIGIN}/orders/42`)
      .navigate(`${ORIGIN}/orders/42`)
      .wait(100)
      .checkout(`${ORIGIN}/orders/42`, DOC)
      .load(`${ORIGIN}/done`, DOC)
    const trail = await trailOf(b)
    expect(ofKind(trail, 'navigation').map((e) => [e.change, e.url, e.pageUrl])).toEqual([
      ['load', HREF, HREF],
      ['navigation', `${ORIGIN}/orders/42`, `${ORIGIN}/orders/42`],
      ['load', `${ORIGIN}/done`, `${ORIGIN}/done`],
    ])
    expect(trail.truncated).toBe(false)
  })
})

describe('click', () => {
  it('names the clicked element with a selector, its role and accessible name', async () => {
    const b = session()
      .click(11)
      .mutation(RESPONSE)
      .wait(2000)
      .click(13)
      .wait(2000)
      .click(21)
      .wait(2000)
      .click(29)
    const clicks = ofKind(await trailOf(b), 'click')
    expect(clicks.map((c) => c.target)).toEqual([
      {
        tag: 'button',
        selector: '#pay',
        role: 'button',
        name: 'Pay now',
        text: 'Pay now',
        testId: 'pay-button',
        id: 'pay',
        type: 'submit',
        href: null,
      },
      {
        tag: 'a',
        selector: 'a.help-link',
        role: 'link',
        name: 'Help',
        text: 'Help',
        testId: null,
        id: null,
        type: null,
        // Query values that look like tokens are not kept.
        href: '/help?token=…',
      },
      expect.objectContaining({ tag: 'div', selector: '#tab-a', role: 'tab', name: 'Details' }),
      expect.objectContaining({ tag: 'h2', role: 'heading', name: 'Order' }),
    ])
    expect(clicks.every((c) => c.count === 1 && c.pageUrl === HREF)).toBe(true)
  })

  it('names a form field by its label, aria-label or placeholder, and never shows a textarea’s text', async () => {
    const b = session()
    for (const id of [16, 18, 25, 30, 17, 19, 22]) b.click(id).wait(2000)
    const targets = ofKind(await trailOf(b), 'click').map((c) => c.target)
    expect(targets.map((t) => [t.selector, t.role, t.name, t.text])).toEqual([
      ['#email', 'textbox', 'Email address', ''],
      ['#agree', 'checkbox', 'Accept terms', ''],
      ['#notes', 'textbox', 'notes', ''],
      ['#q', 'searchbox', 'Find', ''],
      // ARIA gives a password field no role.
      ['#password', null, 'password', ''],
      ['#r1', 'radio', 'plan', ''],
      ['#size', 'combobox', 'size', ''],
    ])
  })

  it('collapses repeated clicks on one element within a second into one entry with a count', async () => {
    const b = session()
      .click(11)
      .mutation(RESPONSE)
      .wait(300)
      .request({ url: `${ORIGIN}/api/pay`, status: 200 })
      .click(11)
      .mutation(RESPONSE)
      .wait(300)
      .click(11)
      .mutation(RESPONSE)
      .wait(1500)
      .click(11)
      .mutation(RESPONSE)
    const trail = await trailOf(b)
    expect(ofKind(trail, 'click').map((c) => c.count)).toEqual([3, 1])
    // The request in between stays in its place after the first click.
    expect(trail.entries.map((e) => e.kind)).toEqual(['navigation', 'click', 'request', 'click'])
  })
})

describe('input', () => {
  it('keeps what the recorder left unmasked, one entry per field, updated to the final value', async () => {
    const b = session()
      .type(16, 'ada@example.com', false)
      .request({ url: `${ORIGIN}/api/suggest`, status: 200 })
      .type(30, 'tent', true)
    const trail = await trailOf(b)
    const inputs = ofKind(trail, 'input')
    expect(inputs.map((i) => [i.target.selector, i.control, i.value, i.masked, i.length, i.checked])).toEqual(
      [
        ['#email', 'text', 'ada@example.com', false, 15, null],
        ['#q', 'text', null, true, 4, null],
      ],
    )
    expect(inputs[0]!.target.name).toBe('Email address')
    expect(inputs[0]!.at).toBeLessThan(inputs[1]!.at)
  })

  it('never keeps a password, even when the recorder sent it in clear', async () => {
    const b = session().type(17, 'hunter2', false)
    const [input] = ofKind(await trailOf(b), 'input')
    expect(input).toMatchObject({ value: null, masked: true, length: 7 })
    expect(JSON.stringify(await trailOf(b))).not.toContain('hunter2')
  })

  it('records toggles with their state, skips radio unchecks and programmatic changes', async () => {
    const b = session()
      .input(18, 'on', true)
      .wait(500)
      .input(19, 'on', true)
      .input(19, 'on', false)
      .wait(500)
      .emit(3, { source: 5, text: 'set by script', isChecked: false, id: 16, userTriggered: false })
      .emit(3, { source: 5, text: 'M', isChecked: false, id: 22 })
    const inputs = ofKind(await trailOf(b), 'input')
    expect(inputs.map((i) => [i.target.selector, i.control, i.checked, i.value])).toEqual([
      ['#agree', 'toggle', true, null],
      ['#r1', 'toggle', true, null],
      ['#size', 'select', null, 'M'],
    ])
  })

  it('cuts a long unmasked value and reports its whole length', async () => {
    const b = session().input(16, 'x'.repeat(5000))
    const [input] = ofKind(await trailOf(b), 'input')
    expect(input!.length).toBe(5000)
    expect(input!.value).toHaveLength(TRAIL_LIMITS.value)
    expect(input!.value!.endsWith(CUT_MARKER)).toBe(true)
  })
})

describe('console and errors', () => {
  it('records every console message with its arguments joined', async () => {
    const b = session()
      .console('log', ['Cart loaded', { items: 2 }])
      .console('warn', ['Deprecated API'])
      .console('error', ['Payment widget failed', { code: 42 }])
    const trail = await trailOf(b)
    expect(ofKind(trail, 'console').map((c) => [c.level, c.message])).toEqual([
      ['log', 'Cart loaded {"items":2}'],
      ['warn', 'Deprecated API'],
      ['error', 'Payment widget failed {"code":42}'],
    ])
    // A plain console.error is a console message, not an uncaught error.
    expect(ofKind(trail, 'error')).toEqual([])
  })

  it('records an uncaught error once when both the SDK and the console plugin report it', async () => {
    const stack = 'TypeError: x is undefined\n    at pay (https://shop.example.com/app.js:1:2)'
    const b = session()
      .sdkError('TypeError', 'x is undefined', stack)
      .uncaught('TypeError: x is undefined', ['pay (https://shop.example.com/app.js:1:2)'])
      .wait(2000)
      .sdkError('TypeError', 'Failed to fetch', '', 'onunhandledrejection')
      .wait(2000)
      .emit(5, { tag: 'error', payload: { type: 'Error', message: 'handled', stack: '', handled: true } })
    const trail = await trailOf(b)
    expect(ofKind(trail, 'error').map((e) => [e.message, e.stack, e.source])).toEqual([
      ['TypeError: x is undefined', stack, 'uncaught'],
      ['TypeError: Failed to fetch', null, 'unhandled_rejection'],
    ])
    // The console plugin's own line stays a console message; a handled error is a custom event.
    expect(ofKind(trail, 'console')).toHaveLength(1)
    expect(ofKind(trail, 'custom').map((c) => c.tag)).toEqual(['error'])
  })

  it('cuts huge messages and stacks with the marker, and keeps them storable', async () => {
    const b = session()
      .console('log', [`${'m'.repeat(1_000_000)}`])
      .console('log', ['a\u0000b\ud800c', '\udc00'])
      .uncaught(
        `Error: ${'e'.repeat(50_000)}`,
        Array.from({ length: 200 }, (_, i) => `f${i} (${ORIGIN}/app.js:1:${i})`),
      )
    const trail = await trailOf(b)
    const [log, broken] = ofKind(trail, 'console')
    expect(log!.message).toHaveLength(TRAIL_LIMITS.message)
    expect(log!.message.endsWith(CUT_MARKER)).toBe(true)
    // Postgres refuses NUL and unpaired surrogates in jsonb: they are replaced, not stored.
    expect(broken!.message).toBe('a\ufffdb\ufffdc \ufffd')
    const [error] = ofKind(trail, 'error')
    expect(error!.message).toHaveLength(TRAIL_LIMITS.message)
    expect(error!.stack).toHaveLength(TRAIL_LIMITS.stack)
    expect(error!.stack!.endsWith(CUT_MARKER)).toBe(true)
  })
})

describe('request', () => {
  it('records every request with its outcome, except the service’s own ingest', async () => {
    const b = session()
      .request({ url: '/api/cart', status: 200, duration: 120 })
      .request({ url: `${ORIGIN}/api/pay`, method: 'post', status: 503 })
      .request({ url: `${ORIGIN}/api/sync`, status: 0, error: 'TypeError: Failed to fetch' })
      .request({ url: 'https://ingest.replay.test/api/v1/replays', method: 'POST', status: 500 })
      .request({ url: `${ORIGIN}/api/profile`, status: 404 })
    const trail = await trailOf(b, { ignoreRequestUrls: ['https://ingest.replay.test/'] })
    expect(ofKind(trail, 'request').map((r) => [r.method, r.url, r.status, r.durationMs, r.failed])).toEqual([
      ['GET', `${ORIGIN}/api/cart`, 200, 120, false],
      ['POST', `${ORIGIN}/api/pay`, 503, 100, true],
      ['GET', `${ORIGIN}/api/sync`, null, 100, true],
      ['GET', `${ORIGIN}/api/profile`, 404, 100, true],
    ])
  })
})

describe('rage and dead clicks', () => {
  it('adds a rage click when the detector reports one, at the burst’s start, in time order', async () => {
    const b = session()
    for (let i = 0; i < 5; i++) b.click(11).wait(150)
    b.wait(3000).console('log', ['later'])
    const trail = await trailOf(b)
    expect(trail.entries.map((e) => e.kind)).toEqual(['navigation', 'click', 'rage_click', 'console'])
    const [click] = ofKind(trail, 'click')
    const [rage] = ofKind(trail, 'rage_click')
    expect(click!.count).toBe(5)
    expect(rage).toMatchObject({ count: 5, at: click!.at, target: click!.target })
    // The rage click supersedes a dead click on the same button, as the findings do.
    expect(ofKind(trail, 'dead_click')).toEqual([])
  })

  it('names a rage click’s element as it was when clicked, not when the burst was decided', async () => {
    const b = session()
    for (let i = 0; i < 5; i++) b.click(11).wait(150)
    // Only the last click is answered, by a change to the button itself.
    b.mutation({ attributes: [{ id: 10, attributes: { role: 'link' } }] }).wait(3000)
    const [rage] = ofKind(await trailOf(b), 'rage_click')
    expect(rage).toMatchObject({ count: 5, target: { selector: '#pay', role: 'button' } })
  })

  it('adds a dead click when the detector reports one, before what followed it', async () => {
    const b = session()
      .click(11)
      .wait(8000)
      .console('log', ['still nothing'])
      .wait(1000)
      .click(13)
      .mutation(RESPONSE)
    const trail = await trailOf(b)
    expect(trail.entries.map((e) => e.kind)).toEqual([
      'navigation',
      'click',
      'dead_click',
      'console',
      'click',
    ])
    expect(ofKind(trail, 'dead_click')[0]).toMatchObject({ target: { selector: '#pay', role: 'button' } })
    const { findings } = await analyzeEvents(b.events)
    expect(findings.map((f) => f.kind)).toEqual(['dead_click'])
  })
})

describe('custom events', () => {
  it('records other custom events with their payload as JSON', async () => {
    const b = session()
      .emit(5, { tag: 'checkout-step', payload: { step: 2, items: ['tent', 'stove'], gift: null } })
      .emit(5, { tag: 'session_end', payload: { reason: 'pagehide' } })
      .emit(5, { tag: 'bare' })
    expect(ofKind(await trailOf(b), 'custom').map((c) => [c.tag, c.payload])).toEqual([
      ['checkout-step', '{"step":2,"items":["tent","stove"],"gift":null}'],
      ['session_end', '{"reason":"pagehide"}'],
      ['bare', null],
    ])
  })

  it('writes only the start of a huge or deeply nested payload', async () => {
    let deep: unknown = 'bottom'
    for (let i = 0; i < 10_000; i++) deep = [deep]
    const wide = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, 'v'.repeat(20)]))
    const b = session()
      .emit(5, { tag: 'wide', payload: wide })
      .emit(5, { tag: 'deep', payload: deep })
      .emit(5, { tag: 'x'.repeat(5000), payload: 'y'.repeat(3_000_000) })
    const [first, second, third] = ofKind(await trailOf(b), 'custom')
    expect(first!.payload).toHaveLength(TRAIL_LIMITS.payload)
    expect(first!.payload!.startsWith('{"k0":"vvvv')).toBe(true)
    expect(first!.payload!.endsWith(CUT_MARKER)).toBe(true)
    expect(second!.payload!.length).toBeLessThanOrEqual(TRAIL_LIMITS.payload)
    expect(second!.payload!.startsWith('[[[[')).toBe(true)
    expect(third!.tag).toHaveLength(TRAIL_LIMITS.message)
    expect(third!.payload).toHaveLength(TRAIL_LIMITS.payload)
  })
})

describe('bounds', () => {
  it(`keeps ${TRAIL_LIMITS.entries} entries and marks the trail truncated`, async () => {
    const b = new SessionBuilder().load(HREF, DOC)
    for (let i = 0; i < TRAIL_LIMITS.entries; i++) b.console('log', [`line ${i}`])
    const trail = await trailOf(b)
    expect(trail.entries).toHaveLength(TRAIL_LIMITS.entries)
    expect(trail.truncated).toBe(true)
    expect(trail.entries.at(-1)).toMatchObject({
      kind: 'console',
      message: `line ${TRAIL_LIMITS.entries - 2}`,
    })
  })

  it('is not truncated at exactly the limit', async () => {
    const b = new SessionBuilder().load(HREF, DOC)
    for (let i = 0; i < TRAIL_LIMITS.entries - 1; i++) b.console('log', [`line ${i}`])
    const trail = await trailOf(b)
    expect(trail.entries).toHaveLength(TRAIL_LIMITS.entries)
    expect(trail.truncated).toBe(false)
  })

  it('still counts repeats of the last kept click once full, and keeps nothing new', async () => {
    // The load and 1,998 messages leave room for exactly one more entry.
    const b = new SessionBuilder().load(HREF, DOC)
    for (let i = 0; i < TRAIL_LIMITS.entries - 2; i++) b.console('log', [`line ${i}`])
    b.click(11).wait(200).click(11).wait(200).input(16, 'a').click(13).wait(200).click(13).wait(200).click(11)
    const trail = await trailOf(b)
    expect(trail.entries).toHaveLength(TRAIL_LIMITS.entries)
    expect(trail.truncated).toBe(true)
    // The input ended the run of clicks; what came after it did not fit.
    expect(trail.entries.at(-1)).toMatchObject({ kind: 'click', count: 2, target: { selector: '#pay' } })
  })

  it('is not truncated by repeats folded into the last entry', async () => {
    const b = new SessionBuilder().load(HREF, DOC)
    for (let i = 0; i < TRAIL_LIMITS.entries - 2; i++) b.console('log', [`line ${i}`])
    b.input(16, 'a').input(16, 'ab').input(16, 'abc')
    const trail = await trailOf(b)
    expect(trail.truncated).toBe(false)
    expect(trail.entries.at(-1)).toMatchObject({ kind: 'input', value: 'abc', length: 3 })
  })

  it('stays small enough to cross a worker and a job step when every entry is at its limits', async () => {
    const b = new SessionBuilder().load(HREF, DOC)
    const trace = Array.from({ length: 100 }, (_, i) => `${'f'.repeat(100)}${i} (${ORIGIN}/app.js:1:${i})`)
    for (let i = 0; i < TRAIL_LIMITS.entries; i++)
      b.uncaught(`Error: ${i} ${'é'.repeat(5000)}`, trace).wait(2000)
    const trail = await trailOf(b)
    expect(trail.truncated).toBe(true)
    expect(Buffer.byteLength(JSON.stringify(trail))).toBeLessThanOrEqual(1_000_100)
    expect(trail.entries.length).toBeGreaterThan(100)
    // Sorted, a prefix in time: the first entries are there.
    expect(trail.entries[0]!.kind).toBe('navigation')
  })
})

describe('a real recording (tests/fixtures/recordings)', () => {
  it('tells what the user did on multi-page, in time order', async () => {
    const { trail } = await analyzeEvents(loadRecording('multi-page').events)
    const ats = trail.entries.map((e) => e.at)
    expect(ats).toEqual([...ats].sort((a, b) => a - b))
    const lines = trail.entries
      .filter((e) => e.kind !== 'request')
      .map((e) => {
        switch (e.kind) {
          case 'navigation':
            return `${e.change} ${new URL(e.url).pathname}`
          case 'click':
            return `click ${e.target.name}`
          case 'input':
            return `input ${e.target.name} ${e.masked ? 'masked' : e.value} ${e.length}`
          case 'error':
            return `error ${e.source} ${e.message}`
          default:
            return e.kind
        }
      })
    expect(lines).toEqual([
      'load /',
      'click Search',
      'input Search masked 4',
      'click Products',
      'load /products',
      'click Next page',
      'navigation /products',
      'click Add to cart',
      'click Cart (1)',
      'load /cart',
      'click Checkout',
      "error uncaught TypeError: Cannot read properties of null (reading 'zip')",
      'console',
    ])
    expect(ofKind(trail, 'request').every((r) => r.status === 200 && !r.failed)).toBe(true)
    // Token-like query values in request URLs are masked as on issue pages.
    expect(JSON.stringify(trail)).not.toMatch(/api_key=[^…]/)
  })
})
