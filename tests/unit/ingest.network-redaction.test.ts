import { describe, expect, it } from 'vitest'
import {
  BATCH_DETAIL_BUDGET,
  type NetworkPolicy,
  OVER_BUDGET,
  redactNetworkDetails,
} from '@/lib/ingest/network-redaction'
import { REDACTED } from '@/sdk/src/network-details/redact'

const redact: NetworkPolicy = { mode: 'redact', redactKeys: [] }

function batch(requests: unknown[], plugin = 'rrweb/network@1') {
  return {
    replay: {
      events: [
        { type: 4, timestamp: 1, data: { href: 'https://a.example' } },
        { type: 6, timestamp: 2, data: { plugin, payload: { requests } } },
      ],
    },
  }
}

describe('redactNetworkDetails', () => {
  it('changes nothing, and reports nothing, without detail fields or outside network events', () => {
    const plain = batch([{ url: 'https://a.example/x', status: 200 }])
    const copy = structuredClone(plain)
    expect(redactNetworkDetails(plain, redact)).toBe(false)
    expect(plain).toEqual(copy)
    const console = batch([{ requestBody: '{"password":"x"}' }], 'rrweb/console@1')
    expect(redactNetworkDetails(console, redact)).toBe(false)
    expect(redactNetworkDetails(null, redact)).toBe(false)
    expect(redactNetworkDetails({ replay: { events: 'no' } }, redact)).toBe(false)
  })

  it('reports no change for details the recorder already redacted', () => {
    const clean = batch([
      {
        requestHeaders: { 'content-type': 'application/json' },
        requestBody: `{"token":"${REDACTED}","a":1}`,
        responseBodyOmitted: 'content-type image/png',
      },
    ])
    expect(redactNetworkDetails(clean, redact)).toBe(false)
  })

  it('removes detail fields of the wrong type and keeps omission reasons to the fixed set', () => {
    const request: Record<string, unknown> = {
      requestHeaders: 'Authorization: x',
      responseHeaders: { 'content-type': 'text/plain', 'x-n': 5, Cookie: 'a' },
      requestBody: { password: 'x' },
      responseBody: 12,
      requestBodyOmitted: 'x'.repeat(5000),
      responseBodyOmitted: ['x'],
    }
    expect(redactNetworkDetails(batch([request]), redact)).toBe(true)
    expect(request).toEqual({
      responseHeaders: { 'content-type': 'text/plain' },
      requestBodyOmitted: 'omitted',
    })
    const typed: Record<string, unknown> = {
      requestBodyOmitted: 'content-type text/html; visit evil.example',
      responseBodyOmitted: 'content-type application/problem+json',
    }
    expect(redactNetworkDetails(batch([typed]), redact)).toBe(true)
    expect(typed).toEqual({
      requestBodyOmitted: 'omitted',
      responseBodyOmitted: 'content-type application/problem+json',
    })
  })

  it('redacts the leaks found in review: repeated keys, form bodies with spaces, by content type', () => {
    const request: Record<string, unknown> = {
      requestHeaders: { 'content-type': 'application/x-www-form-urlencoded' },
      requestBody: '{odd}&password=a b"c',
      responseBody: '{"user":{"password":"hunter2"},"user":1}',
    }
    expect(redactNetworkDetails(batch([request]), redact)).toBe(true)
    expect(request).toEqual({
      requestHeaders: { 'content-type': 'application/x-www-form-urlencoded' },
      requestBody: `{odd}&password=${REDACTED}`,
      responseBody: '{"user":1}',
    })
  })

  it('redacts at most the batch budget of body characters; later bodies are omitted with a reason', () => {
    const body = `{"password":"hunter2","pad":"${'a'.repeat(400_000)}"}`
    const requests: Record<string, unknown>[] = Array.from({ length: 4 }, () => ({
      requestBody: body,
      responseBody: body,
    }))
    expect(redactNetworkDetails(batch(requests), redact)).toBe(true)
    const fits = Math.floor(BATCH_DETAIL_BUDGET / body.length)
    const bodies = requests.flatMap((r) => [r.requestBody, r.responseBody])
    const reasons = requests.flatMap((r) => [r.requestBodyOmitted, r.responseBodyOmitted])
    expect(bodies.filter((b) => typeof b === 'string').length).toBe(fits)
    expect(reasons.filter((r) => r === OVER_BUDGET).length).toBe(8 - fits)
    for (const b of bodies) expect(typeof b === 'string' && b.includes('hunter2')).toBe(false)
    // Deterministic: the same batch again is stored the same.
    const again = structuredClone(requests)
    expect(redactNetworkDetails(batch(again), redact)).toBe(false)
    expect(again).toEqual(requests)
  })

  it('applies the organization words to bodies and header names', () => {
    const request: Record<string, unknown> = {
      requestHeaders: { 'x-iban': 'DE00', 'x-trace': 't' },
      requestBody: '{"iban":"DE00","amount":3}',
    }
    expect(redactNetworkDetails(batch([request]), { mode: 'redact', redactKeys: ['IBAN'] })).toBe(true)
    expect(request).toEqual({
      requestHeaders: { 'x-trace': 't' },
      requestBody: `{"iban":"${REDACTED}","amount":3}`,
    })
  })

  it('drop removes every detail field and keeps the rest of the request', () => {
    const request: Record<string, unknown> = {
      url: 'u',
      status: 500,
      requestBody: 'a',
      responseBodyOmitted: 'b',
    }
    expect(redactNetworkDetails(batch([request]), { mode: 'drop', redactKeys: [] })).toBe(true)
    expect(request).toEqual({ url: 'u', status: 500 })
  })
})
