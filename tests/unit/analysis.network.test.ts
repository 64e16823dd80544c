/**
 * network_error (docs/design/analysis.md §4.3) over our `rrweb/network@1` plugin events (§1.9): what is
 * reported, the status-0 and ignore guards, linking to the click that started the request,
 * grouping and priority.
 */
import { describe, expect, it } from 'vitest'
import { analyzeEvents } from '@/lib/analysis'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'
import type { AnalyzerOptions } from '@/lib/analysis/types'

const ORIGIN = 'https://app.example.com'
const DOC = page([el(10, 'button', { id: 'save' }, [txt(11, 'Save profile')]), el(12, 'div', { id: 'out' })])
const RESPONSE = { attributes: [{ id: 12, attributes: { class: 'busy' } }] }

function session(path = '/settings'): SessionBuilder {
  return new SessionBuilder().load(`${ORIGIN}${path}`, DOC).wait(1000)
}

function settle(b: SessionBuilder): SessionBuilder {
  return b.wait(31_000).mouseMove()
}

async function run(b: SessionBuilder, options?: AnalyzerOptions) {
  return analyzeEvents(b.events, options)
}

describe('what is reported', () => {
  it('reports 5xx with method, URL, status and title', async () => {
    const b = settle(session().request({ url: `${ORIGIN}/api/profile?x=1`, method: 'put', status: 503 }))
    const { findings, digest } = await run(b)
    expect(findings).toHaveLength(1)
    expect(findings[0]).toMatchObject({
      kind: 'network_error',
      title: 'PUT /api/profile returns 503 on /settings',
      evidence: { method: 'PUT', status: 503, url: `${ORIGIN}/api/profile?x=1` },
    })
    expect(digest.networkFailures).toEqual([
      { method: 'PUT', url: `${ORIGIN}/api/profile?x=1`, status: 503, at: expect.any(Number) },
    ])
  })

  it('reports failed requests (status 0) and 429', async () => {
    const b = settle(
      session()
        .request({
          url: `${ORIGIN}/api/sync`,
          method: 'POST',
          status: 0,
          error: 'TypeError: Failed to fetch',
        })
        .wait(1000)
        .request({ url: `${ORIGIN}/api/search`, status: 429 }),
    )
    const { findings } = await run(b)
    expect(findings.map((f) => f.title)).toEqual([
      'POST /api/sync fails with no response on /settings',
      'GET /api/search returns 429 on /settings',
    ])
  })

  it.each([400, 401, 403, 404, 409, 422, 200, 204, 304])('does not report status %i', async (status) => {
    const b = settle(session().request({ url: `${ORIGIN}/api/x`, method: 'POST', status }))
    expect((await run(b)).findings).toEqual([])
  })

  it('reports requests made before recording started (isInitial) without a trigger', async () => {
    const b = settle(
      session()
        .click(10)
        .mutation(RESPONSE)
        .request({ url: `${ORIGIN}/api/config`, status: 500 }, true),
    )
    const { findings } = await run(b)
    expect(findings.map((f) => [f.evidence.isInitial, f.trigger])).toEqual([[true, null]])
  })
})

describe('guards (§4.3)', () => {
  it('ignores a failed request when a page load follows within 500 ms (aborted by leaving)', async () => {
    const b = settle(
      session()
        .request({ url: `${ORIGIN}/api/a`, status: 0 })
        .wait(300)
        .load(`${ORIGIN}/next`, DOC),
    )
    expect((await run(b)).findings).toEqual([])
  })

  it('ignores a failed request when an SPA navigation follows within 500 ms', async () => {
    const b = settle(
      session()
        .request({ url: `${ORIGIN}/api/a`, status: 0 })
        .wait(200)
        .navigate(`${ORIGIN}/other`),
    )
    expect((await run(b)).findings).toEqual([])
  })

  it('ignores a failed request in the last 500 ms of the session (the tab closed)', async () => {
    const b = session()
      .request({ url: `${ORIGIN}/api/a`, status: 0 })
      .wait(100)
      .mouseMove()
    expect((await run(b)).findings).toEqual([])
  })

  it('reports a failed request when the page stays for more than 500 ms', async () => {
    const b = settle(
      session()
        .request({ url: `${ORIGIN}/api/a`, status: 0 })
        .wait(600)
        .load(`${ORIGIN}/next`, DOC),
    )
    expect((await run(b)).findings).toHaveLength(1)
  })

  it('ignores aborted requests and resource-timing entries without a status', async () => {
    const b = settle(
      session()
        .request({
          url: `${ORIGIN}/api/search`,
          status: 0,
          error: 'AbortError: signal is aborted without reason',
        })
        .request({ url: 'https://cdn.other.net/pixel.gif', status: 0, initiatorType: 'img' }),
    )
    expect((await run(b)).findings).toEqual([])
  })

  it("ignores the service's own ingest URL and analytics hosts", async () => {
    const b = settle(
      session()
        .request({ url: 'https://ingest.replay.test/api/sdk/replay', method: 'POST', status: 503 })
        .request({ url: 'https://www.google-analytics.com/g/collect', method: 'POST', status: 0 }),
    )
    expect((await run(b, { ignoreRequestUrls: ['https://ingest.replay.test/'] })).findings).toEqual([])
  })
})

describe('linking and grouping', () => {
  it('links the click when the request started ≤ 1 s after it and failed ≤ 10 s after it', async () => {
    const b = settle(
      session()
        .click(10)
        .mutation(RESPONSE)
        .wait(800)
        .request({ url: `${ORIGIN}/api/profile`, method: 'PUT', status: 500, duration: 300 }),
    )
    const [finding] = (await run(b)).findings
    expect(finding!.trigger?.element.text).toBe('Save profile')
    expect(finding!.stepsToReplicate).toMatch(
      /Clicked “Save profile” \(#save\)\n3\. PUT \/api\/profile returns 500/,
    )
  })

  it.each([
    ['started 1.5 s after the click', 1600, 100],
    ['failed 11 s after the click', 11_000, 10_800],
  ])('does not link the click when the request %s', async (_, wait, duration) => {
    const b = settle(
      session()
        .click(10)
        .mutation(RESPONSE)
        .wait(wait)
        .request({ url: `${ORIGIN}/api/p`, status: 500, duration }),
    )
    expect((await run(b)).findings.map((f) => f.trigger)).toEqual([null])
  })

  it('groups by method, host + path pattern and status class; the query does not count', async () => {
    const b = settle(
      session()
        .request({ url: `${ORIGIN}/api/orders/1?x=1`, status: 500 })
        .request({ url: `${ORIGIN}/api/orders/2?x=2`, status: 503 })
        .request({ url: `${ORIGIN}/api/orders/3`, method: 'DELETE', status: 500 })
        .request({ url: `${ORIGIN}/api/orders/4`, status: 429 }),
    )
    const { findings } = await run(b)
    expect(findings.map((f) => [f.evidence.method, f.evidence.status, f.occurrences])).toEqual([
      ['GET', 500, 2],
      ['DELETE', 500, 1],
      ['GET', 429, 1],
    ])
  })
})

describe('priority (§4.5)', () => {
  it('user-initiated failures are high, background GETs medium, 429 low', async () => {
    const b = settle(
      session()
        .request({ url: `${ORIGIN}/api/profile`, method: 'POST', status: 500 })
        .request({ url: `${ORIGIN}/api/feed`, status: 500 })
        .click(10)
        .mutation(RESPONSE)
        .wait(200)
        .request({ url: `${ORIGIN}/api/search`, status: 0, duration: 100 })
        .wait(600)
        .request({ url: `${ORIGIN}/api/limits`, status: 429 }),
    )
    const { findings } = await run(b)
    expect(Object.fromEntries(findings.map((f) => [f.evidence.url, f.priority]))).toEqual({
      [`${ORIGIN}/api/profile`]: 'high',
      [`${ORIGIN}/api/feed`]: 'medium',
      [`${ORIGIN}/api/search`]: 'high',
      [`${ORIGIN}/api/limits`]: 'low',
    })
  })

  it('raises a critical path (page or request) and lowers a third-party host', async () => {
    const b = settle(
      session('/checkout')
        .request({ url: `${ORIGIN}/api/feed`, status: 500 })
        .request({ url: 'https://widgets.other.io/v1/reviews', status: 500 }),
    )
    const { findings } = await run(b)
    expect(findings.map((f) => [f.title, f.priority])).toEqual([
      ['GET /api/feed returns 500 on /checkout', 'high'],
      ['GET widgets.other.io/v1/reviews returns 500 on /checkout', 'medium'],
    ])
  })

  it('is blocking when the session ends within 30 s without a later success', async () => {
    const url = `${ORIGIN}/api/feed`
    const ended = await run(session().request({ url, status: 500 }).wait(5000).mouseMove())
    const recovered = await run(
      session().request({ url, status: 500 }).wait(2000).request({ url, status: 200 }).wait(3000).mouseMove(),
    )
    expect(ended.findings[0]).toMatchObject({ priority: 'high', evidence: { blocking: true } })
    expect(recovered.findings[0]).toMatchObject({ priority: 'medium', evidence: { blocking: false } })
  })

  it('is blocking when the page is left within 30 s', async () => {
    const b = settle(
      session()
        .request({ url: `${ORIGIN}/api/feed`, status: 500 })
        .wait(10_000)
        .navigate(`${ORIGIN}/home`),
    )
    expect((await run(b)).findings[0]!.evidence.blocking).toBe(true)
  })

  // Issue 15: a request failing again by itself (polling) is not the user retrying; only the
  // same click again is (analysis.follow-up.test.ts).
  it('does not count three background occurrences as the user retrying', async () => {
    const b = settle(
      session()
        .request({ url: `${ORIGIN}/api/feed`, status: 500 })
        .wait(1000)
        .request({ url: `${ORIGIN}/api/feed`, status: 500 })
        .wait(1000)
        .request({ url: `${ORIGIN}/api/feed`, status: 500 }),
    )
    expect((await run(b)).findings[0]).toMatchObject({
      occurrences: 3,
      priority: 'medium',
      evidence: { retried: false },
    })
  })
})
