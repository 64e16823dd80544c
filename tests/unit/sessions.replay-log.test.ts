import { describe, expect, it } from 'vitest'
import type { RrwebEvent } from '@/lib/analysis/types'
import {
  MAX_LOG_BODY,
  MAX_LOG_DETAIL_CHARS,
  MAX_LOG_ENTRIES,
  MAX_LOG_HEADERS,
  MAX_LOG_TEXT,
  MAX_LOG_URL,
  replayLogOf,
  sessionReplayLog,
} from '@/lib/sessions/replay-log'
import type { BlobStore } from '@/lib/storage/types'
import { loadRecording } from '../helpers/pipeline'

const consoleEvent = (at: number, level: unknown, payload: unknown[]): RrwebEvent => ({
  type: 6,
  timestamp: at,
  data: { plugin: 'rrweb/console@1', payload: { level, trace: [], payload } },
})

const networkEvent = (at: number, requests: unknown[]): RrwebEvent => ({
  type: 6,
  timestamp: at,
  data: { plugin: 'rrweb/network@1', payload: { requests } },
})

describe('replayLogOf', () => {
  it('lists console messages by level and requests with their outcome, from a real recording', () => {
    const log = replayLogOf(loadRecording('console-error').events)
    expect(log.console.map(({ level, text }) => [level, text])).toEqual([
      ['info', '[account] profile loaded'],
      ['log', 'payment widget config {"provider":"cards","enabled":false}'],
      ['warn', 'billing.v1 is deprecated and will be removed'],
      ['error', 'Payment widget failed to load {"code":42}'],
    ])
    expect(log.network[0]).toMatchObject({ method: 'GET', status: 200, failed: false })
    expect(log.network[0]!.url).toContain('/api/payment-widget')
    expect(log.truncated).toEqual({ console: false, network: false })
  })

  it('marks failed requests, a missing answer included', () => {
    const log = replayLogOf(loadRecording('network-failed').events)
    expect(log.network.map(({ method, status, failed }) => [method, status, failed])).toEqual([
      ['POST', 0, true],
      ['PUT', 503, true],
    ])
  })

  it('shows an uncaught error once although the SDK and the console plugin both report it', () => {
    const log = replayLogOf(loadRecording('multi-page').events)
    const errors = log.console.filter((entry) => entry.level === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0]!.text).toBe("Uncaught TypeError: Cannot read properties of null (reading 'zip')")
  })

  it('keeps entries in time order with the event times', () => {
    const log = replayLogOf([
      consoleEvent(30, 'warn', ['"later"']),
      consoleEvent(10, 'error', ['"first"']),
      networkEvent(20, [{ url: 'https://shop.example/a', method: 'get', status: 404, duration: 12.4 }]),
    ])
    expect(log.console.map((entry) => entry.at)).toEqual([10, 30])
    expect(log.network).toEqual([
      { at: 20, method: 'GET', url: 'https://shop.example/a', status: 404, durationMs: 12, failed: true },
    ])
  })

  // Anyone holding the public ingest key writes these: every list and text has a ceiling.
  it('caps the lists and cuts long text with a marker', () => {
    const long = `"${'x'.repeat(100_000)}"`
    const events = Array.from({ length: MAX_LOG_ENTRIES + 50 }, (_, i) =>
      consoleEvent(i * 2000, 'log', [long, long, long, long, long, long, long]),
    )
    events.push(networkEvent(5, [{ url: `https://shop.example/${'p'.repeat(50_000)}`, status: 200 }]))
    const log = replayLogOf(events)
    expect(log.console).toHaveLength(MAX_LOG_ENTRIES)
    expect(log.truncated.console).toBe(true)
    expect(log.console[0]!.text.length).toBeLessThanOrEqual(MAX_LOG_TEXT)
    expect(log.console[0]!.text.endsWith('…')).toBe(true)
    expect(log.network[0]!.url.length).toBeLessThanOrEqual(MAX_LOG_URL)
    expect(log.network[0]!.url.endsWith('…')).toBe(true)
  })

  it('skips what is not a console or network entry, and malformed ones', () => {
    const log = replayLogOf([
      { type: 3, timestamp: 1, data: { source: 2 } },
      { type: 6, timestamp: 2, data: { plugin: 'other', payload: {} } },
      { type: 6, timestamp: 3, data: 'not an object' },
      networkEvent(4, [null, { url: 'https://x.example/' }, { status: 200 }, 'text']),
      consoleEvent(5, { level: 'nested' }, [42, { not: 'json text' }]),
      { type: 5, timestamp: 6, data: { tag: 'error', payload: { message: 'handled', handled: true } } },
    ])
    expect(log.network).toEqual([])
    // An unknown level reads as a log; arguments that are not the plugin's JSON text are not shown.
    expect(log.console).toEqual([{ at: 5, level: 'log', text: '… …' }])
  })
})

describe('captured request details (docs/network-details.md)', () => {
  const request = (details: Record<string, unknown>) => ({
    url: 'https://shop.example/api/orders',
    method: 'POST',
    status: 500,
    ...details,
  })

  it('lists headers and bodies, JSON pretty-printed, and why a body was left out', () => {
    const log = replayLogOf([
      networkEvent(10, [
        request({
          requestHeaders: { 'content-type': 'application/json', authorization: '[redacted]' },
          requestBody: '{"sku":42,"qty":1}',
          responseHeaders: { 'x-request-id': 'abc' },
          responseBody: '{"error":{"message":"Insufficient stock for SKU 42"}}',
        }),
        request({ responseBody: 'plain <b>text</b>', requestBodyOmitted: 'content-type image/png' }),
        { url: 'https://shop.example/api/plain', status: 200 },
      ]),
    ])
    expect(log.network[0]!.details).toEqual({
      requestHeaders: [
        ['content-type', 'application/json'],
        ['authorization', '[redacted]'],
      ],
      responseHeaders: [['x-request-id', 'abc']],
      requestBody: '{\n  "sku": 42,\n  "qty": 1\n}',
      responseBody: '{\n  "error": {\n    "message": "Insufficient stock for SKU 42"\n  }\n}',
      requestBodyOmitted: null,
      responseBodyOmitted: null,
    })
    expect(log.network[1]!.details).toMatchObject({
      requestHeaders: [],
      responseBody: 'plain <b>text</b>',
      requestBodyOmitted: 'content-type image/png',
    })
    expect(log.network[2]).not.toHaveProperty('details')
    expect(log).not.toHaveProperty('detailsCut')
  })

  it('bounds every part: header count and length, body length, deep JSON, the whole log', () => {
    const headers = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`h${i}${'n'.repeat(1000)}`, 'v'.repeat(10_000)]),
    )
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`
    const log = replayLogOf([
      networkEvent(1, [
        request({
          requestHeaders: { ...headers, notText: 42 },
          requestBody: 'b'.repeat(1_000_000),
          responseBody: deep,
          responseBodyOmitted: { not: 'text' },
        }),
      ]),
    ])
    const details = log.network[0]!.details!
    expect(details.requestHeaders).toHaveLength(MAX_LOG_HEADERS)
    expect(details.requestHeaders.every(([n, v]) => n.length <= 100 && v.length <= MAX_LOG_TEXT)).toBe(true)
    expect(details.requestBody!.length).toBe(MAX_LOG_BODY)
    expect(details.requestBody!.endsWith('…')).toBe(true)
    // Too deep to indent: shown as sent (cut), never printed with thousands of indented lines.
    expect(details.responseBody).toBe(`${deep.slice(0, MAX_LOG_BODY - 1)}…`)
    expect(details.responseBodyOmitted).toBeNull()

    const many = Array.from({ length: MAX_LOG_ENTRIES }, (_, i) =>
      networkEvent(i, [request({ responseBody: 'x'.repeat(MAX_LOG_BODY * 2) })]),
    )
    const capped = replayLogOf(many)
    const withDetails = capped.network.filter((entry) => entry.details)
    expect(withDetails.length).toBe(Math.floor(MAX_LOG_DETAIL_CHARS / MAX_LOG_BODY))
    expect(capped.network).toHaveLength(MAX_LOG_ENTRIES)
    expect(capped.detailsCut).toBe(true)
  })
})

describe('sessionReplayLog', () => {
  const batch = (events: RrwebEvent[]) => new TextEncoder().encode(JSON.stringify({ replay: { events } }))

  it('reads the stored batches in order, and gives null when one is missing', async () => {
    const blobs = new Map([
      ['b1', batch([consoleEvent(1, 'warn', ['"one"'])])],
      ['b2', batch([consoleEvent(2, 'error', ['"two"'])])],
    ])
    const store = { get: async (key: string) => blobs.get(key) ?? null } as BlobStore
    const log = await sessionReplayLog(store, [
      { sequence: 1, blobKey: 'b1' },
      { sequence: 2, blobKey: 'b2' },
    ])
    expect(log?.console.map((entry) => entry.text)).toEqual(['one', 'two'])
    expect(await sessionReplayLog(store, [{ sequence: 1, blobKey: 'gone' }])).toBeNull()
  })
})
