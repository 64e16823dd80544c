import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { POST as register } from '@/app/api/oauth/register/route'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { useDatabase } from '@/lib/db'
import { useRateLimiter } from '@/lib/ratelimit'
// The very module `npm start` runs (server.mjs imports it), in front of the real route handler.
import { createFrontServer, FRONT_SERVER_MARKER, markFrontServer } from '../../server/front.mjs'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { holdRateLimitClock } from '../helpers/frozen-rate-limit'

const REDIRECT = 'http://127.0.0.1:7777/callback'

/** Node request → the route's Web Request, as Next's adapter does; the answer written back. */
async function toRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers))
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
      headers.append(name, one)
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers,
    body: req.method === 'GET' || req.method === 'HEAD' ? undefined : (Readable.toWeb(req) as ReadableStream),
    duplex: 'half',
  } as RequestInit)
  const response = await register(request)
  res.writeHead(response.status, Object.fromEntries(response.headers))
  res.end(Buffer.from(await response.arrayBuffer()))
}

let database: TestDatabase
let server: Server
let base: string

function useHops(hops: number) {
  setConfigForTests(parseConfig({ ...process.env, TRUSTED_PROXY_HOPS: String(hops) }))
  // A run that crossed the hour would see the sliding window round one count away.
  holdRateLimitClock()
}

function registerVia(headers: Record<string, string>) {
  return fetch(`${base}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ redirect_uris: [REDIRECT] }),
  })
}

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  markFrontServer()
  server = createFrontServer({ handle: toRoute })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterEach(() => {
  setConfigForTests(undefined)
  useRateLimiter(undefined)
})
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  delete (globalThis as Record<symbol, unknown>)[FRONT_SERVER_MARKER]
  useDatabase(undefined)
  await database.close()
})

describe('client registration behind our server (server/front.mjs)', () => {
  it('counts one socket address once, however X-Forwarded-For and our own header are forged (no trusted proxy)', async () => {
    useHops(0)
    const statuses: number[] = []
    for (let i = 0; i < 25; i++) {
      const response = await registerVia({
        'x-forwarded-for': `198.51.100.${i + 1}`,
        'x-real-ip': `192.0.2.${i + 1}`,
        'x-replay-socket-address': `203.0.113.${i + 1}`,
      })
      statuses.push(response.status)
      if (response.status === 429) {
        expect(((await response.json()) as { error: string }).error).toBe('too_many_requests')
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
      }
    }
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(201))
    expect(statuses.slice(20)).toEqual(Array(5).fill(429))
  })

  it('with TRUSTED_PROXY_HOPS=1 uses the entry the proxy appended: two rightmost values, two budgets', async () => {
    useHops(1)
    // The client's own prefix rotates; the proxy's rightmost entry decides.
    const via = (appended: string, i: number) =>
      registerVia({ 'x-forwarded-for': `10.0.0.${i}, ${appended}` })
    for (let i = 0; i < 20; i++) expect((await via('203.0.113.50', i)).status).toBe(201)
    expect((await via('203.0.113.50', 99)).status).toBe(429)
    // The same client seen through another address of the proxy's: its own budget.
    for (let i = 0; i < 20; i++) expect((await via('203.0.113.51', i)).status).toBe(201)
    expect((await via('203.0.113.51', 99)).status).toBe(429)
    // IPv4-mapped IPv6 is the same address as its IPv4 form.
    expect((await via('::ffff:203.0.113.50', 1)).status).toBe(429)
  })

  it('with TRUSTED_PROXY_HOPS=1 and no X-Forwarded-For (the proxy was bypassed) falls back to the socket', async () => {
    useHops(1)
    for (let i = 0; i < 20; i++)
      expect((await registerVia({ 'x-replay-socket-address': `203.0.113.${i}` })).status).toBe(201)
    expect((await registerVia({})).status).toBe(429)
  })
})
