/**
 * The streaming analyser as a whole: page URLs from Meta and navigation events
 * (docs/design/analysis.md §1.5, §1.6), summary figures, the digest, the push/finish contract
 * and bounded state.
 */
import { describe, expect, it } from 'vitest'
import { analyzeEvents, createAnalyzer } from '@/lib/analysis'
import { DIGEST_LIMIT } from '@/lib/analysis/digest'
import { MAX_FINDINGS } from '@/lib/analysis/findings'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'
import type { RrwebEvent } from '@/lib/analysis/types'

const ORIGIN = 'https://shop.example.com'
const DOC = page([
  el(10, 'button', { id: 'add', class: 'btn' }, [txt(11, 'Add to cart')]),
  el(12, 'span', { id: 'count' }, [txt(13, '0')]),
  el(14, 'input', { id: 'q', 'aria-label': 'Search', value: 'secret' }),
])

describe('pages (§1.5: Meta and our navigation event)', () => {
  it('counts page loads and SPA navigations, not checkouts on the same URL', async () => {
    const b = new SessionBuilder()
      .emit(4, { href: 'about:blank', width: 1, height: 1 })
      .load(`${ORIGIN}/`, DOC)
      .wait(2000)
      .checkout(`${ORIGIN}/`, DOC)
      .wait(2000)
      .checkout(`${ORIGIN}/`, DOC)
      .navigate(`${ORIGIN}/products?page=2`, `${ORIGIN}/`)
      .navigate(`${ORIGIN}/products?page=2`)
      .load(`${ORIGIN}/products/42`, DOC)
      .load(`${ORIGIN}/products/42`, DOC)
    const { summary, digest } = await analyzeEvents(b.events)
    expect(summary.pageCount).toBe(4)
    expect(digest.pages.map((p) => [p.url, p.pathPattern])).toEqual([
      [`${ORIGIN}/`, '/'],
      [`${ORIGIN}/products?page=2`, '/products'],
      [`${ORIGIN}/products/42`, '/products/:id'],
      [`${ORIGIN}/products/42`, '/products/:id'],
    ])
  })

  it('treats Load after Meta (real recording order) as the same document', async () => {
    const b = new SessionBuilder()
      .emit(0, {})
      .emit(4, { href: `${ORIGIN}/`, width: 1, height: 1 })
      .emit(2, { node: DOC, initialOffset: { top: 0, left: 0 } })
      .emit(1, {})
      .wait(1500)
      .checkout(`${ORIGIN}/`, DOC)
    expect((await analyzeEvents(b.events)).summary.pageCount).toBe(1)
  })

  it('attributes findings to the SPA route they happened on', async () => {
    const b = new SessionBuilder()
      .load(`${ORIGIN}/`, DOC)
      .navigate(`${ORIGIN}/orders/981`)
      .request({ url: `${ORIGIN}/api/orders/981`, status: 500 })
    const { findings } = await analyzeEvents(b.events)
    expect(findings[0]).toMatchObject({ url: `${ORIGIN}/orders/981`, pathPattern: '/orders/:id' })
  })
})

describe('summary and digest', () => {
  it('reports duration, errors, clicks and typing without values', async () => {
    const b = new SessionBuilder()
      .load(`${ORIGIN}/products/1`, DOC)
      .wait(1000)
      .click(11)
      .text(13, '1')
      .click(14)
      .type(14, 'tent', false)
      .uncaught('TypeError: x is undefined')
      // Not about the failing /api/cart request, which would make it that request's evidence (issue 34).
      .console('error', ['Price widget failed'])
      .request({ url: `${ORIGIN}/api/cart`, method: 'POST', status: 500 })
      .wait(20_000)
      .mouseMove()
    const { summary, digest, eventCount } = await analyzeEvents(b.events)
    const first = b.events[0]!.timestamp
    const last = b.events[b.events.length - 1]!.timestamp
    expect(eventCount).toBe(b.events.length)
    expect(summary).toEqual({
      durationMs: last - first,
      pageCount: 1,
      errorCount: 2,
      rageClickCount: 0,
      deadClickCount: 0,
    })
    expect(digest.durationMs).toBe(last - first)
    expect(digest.clicks.map((c) => [c.text, c.selector])).toEqual([
      ['Add to cart', 'button#add.btn'],
      ['', 'input#q[aria-label="Search"]'],
    ])
    expect(digest.inputs).toEqual([
      { field: 'Search', length: 4, url: `${ORIGIN}/products/1`, at: expect.any(Number) },
    ])
    expect(digest.errors.map((e) => e.message)).toEqual(['TypeError: x is undefined', 'Price widget failed'])
    expect(digest.networkFailures).toHaveLength(1)
    expect(JSON.stringify(digest)).not.toMatch(/tent|secret/)
  })

  it(`caps every digest list at ${DIGEST_LIMIT} entries`, async () => {
    const b = new SessionBuilder().load(`${ORIGIN}/`, DOC)
    for (let i = 0; i < 300; i++)
      b.click(11)
        .text(13, String(i))
        .console('error', [`e${i}x`])
        .wait(2000)
    const { digest } = await analyzeEvents(b.events)
    expect(digest.clicks).toHaveLength(DIGEST_LIMIT)
    expect(digest.errors).toHaveLength(DIGEST_LIMIT)
  })

  it(`keeps at most ${MAX_FINDINGS} distinct findings per session`, async () => {
    const b = new SessionBuilder().load(`${ORIGIN}/`, DOC)
    // Words defeat normalisation, so each message is a new fingerprint.
    const word = (i: number) => i.toString(26).replace(/[0-9]/g, (d) => 'qrstuvwxyz'[Number(d)]!)
    for (let i = 0; i < MAX_FINDINGS + 50; i++) b.console('error', [`failure ${word(i)}`]).wait(1500)
    const { findings, summary } = await analyzeEvents(b.events)
    expect(findings).toHaveLength(MAX_FINDINGS)
    expect(summary.errorCount).toBe(MAX_FINDINGS)
  })
})

describe('the Analyzer contract', () => {
  it('accepts async iterables, as events stream from storage batch by batch', async () => {
    const b = new SessionBuilder()
      .load(`${ORIGIN}/`, DOC)
      .wait(100)
      .request({ url: `${ORIGIN}/api/x`, status: 500 })
    async function* stream(): AsyncGenerator<RrwebEvent> {
      for (const event of b.events) yield event
    }
    const streamed = await analyzeEvents(stream())
    const direct = await analyzeEvents(b.events)
    expect(streamed).toEqual(direct)
  })

  it('gives the same result for the same events (deterministic text)', async () => {
    const b = new SessionBuilder()
      .load(`${ORIGIN}/`, DOC)
      .click(11)
      .uncaught('Error: boom')
      .wait(40_000)
      .mouseMove()
    expect(await analyzeEvents(b.events)).toEqual(await analyzeEvents(b.events))
  })

  it('refuses events after finish, and a second finish', () => {
    const analyzer = createAnalyzer()
    analyzer.finish()
    expect(() => analyzer.push({ type: 4, timestamp: 1, data: { href: `${ORIGIN}/` } })).toThrow()
    expect(() => analyzer.finish()).toThrow()
  })

  it('skips malformed events without failing, and counts them', async () => {
    const events = [
      { type: 3, timestamp: 5, data: null },
      { type: 6, timestamp: 6, data: { plugin: 'rrweb/console@1', payload: 'x' } },
      {
        type: 6,
        timestamp: 7,
        data: { plugin: 'rrweb/network@1', payload: { requests: [null, { url: 5 }] } },
      },
      { type: 3, timestamp: 8, data: { source: 0, adds: [{ parentId: 1, node: null }], removes: 'x' } },
      { type: 3, timestamp: 9, data: { source: 2, type: 2, id: 'x' } },
      { type: 'x', timestamp: 10, data: {} },
      { type: 2, timestamp: Number.NaN, data: {} },
    ] as unknown as RrwebEvent[]
    const result = await analyzeEvents(events)
    expect(result.eventCount).toBe(events.length)
    expect(result.findings).toEqual([])
  })

  it('handles an empty session', async () => {
    const result = await analyzeEvents([])
    expect(result.summary).toEqual({
      durationMs: 0,
      pageCount: 0,
      errorCount: 0,
      rageClickCount: 0,
      deadClickCount: 0,
    })
  })

  it('keeps the document model at the size of the live DOM over a long session', async () => {
    const analyzer = createAnalyzer()
    const b = new SessionBuilder().load(`${ORIGIN}/`, DOC)
    for (const event of b.events) analyzer.push(event)
    for (let i = 0; i < 20_000; i++) {
      const id = 1000 + i
      const at = b.now + i * 10
      // A toast appears and goes: the DOM does not grow.
      analyzer.push({
        type: 3,
        timestamp: at + 5,
        data: {
          source: 0,
          adds: [
            {
              parentId: 4,
              nextId: null,
              node: { type: 2, tagName: 'div', attributes: {}, childNodes: [], id },
            },
          ],
          removes: [],
          texts: [],
          attributes: [],
        },
      })
      analyzer.push({
        type: 3,
        timestamp: at + 10,
        data: { source: 0, adds: [], removes: [{ parentId: 4, id }], texts: [], attributes: [] },
      })
    }
    const internal = analyzer as unknown as { ctx: { doc: { nodes: Map<number, unknown> } } }
    expect(internal.ctx.doc.nodes.size).toBeLessThan(20)
    expect(analyzer.finish().eventCount).toBe(b.events.length + 40_000)
  })
})
