import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startBuiltServer } from './server'

/**
 * The address-keyed limits through the real `npm start` entry (server.mjs in front of the built
 * app), over HTTP: client registration allows 20 an hour per address.
 */

const register = (server: RunningServer, headers: Record<string, string>) =>
  fetch(`${server.baseUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:7777/callback'] }),
  })

/**
 * The limit is a sliding window, as Upstash's: just after the hour turns, the last hour's 20
 * count as floor(20 × (1 − elapsed)) = 19, so a 21st request is let through. A run of
 * requests must therefore not straddle the hour: one that would start in its last 30 s waits
 * for the next hour (this flaked a CI run at 10:00).
 */
async function awayFromHourBoundary() {
  const intoHour = Date.now() % 3_600_000
  if (intoHour > 3_570_000) await new Promise((r) => setTimeout(r, 3_600_000 - intoHour + 1_000))
}

describe('npm start without a trusted proxy', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startBuiltServer()
  })
  afterAll(() => server?.stop())

  it('counts the socket address: rotating X-Forwarded-For (or our own header) does not multiply the limit', async () => {
    await awayFromHourBoundary()
    const statuses: number[] = []
    for (let i = 0; i < 25; i++)
      statuses.push(
        (
          await register(server, {
            'x-forwarded-for': `198.51.100.${i + 1}`,
            'x-real-ip': `192.0.2.${i + 1}`,
            'x-replay-socket-address': `203.0.113.${i + 1}`,
          })
        ).status,
      )
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(201))
    expect(statuses.slice(20)).toEqual(Array(5).fill(429))
    expect(server.logs()).not.toContain('client addresses are unknown')
  })
})

describe('npm start with TRUSTED_PROXY_HOPS=1', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startBuiltServer({ TRUSTED_PROXY_HOPS: '1' })
  })
  afterAll(() => server?.stop())

  it('uses the address the proxy appended (rightmost): two such addresses, two budgets', async () => {
    const via = (appended: string, i: number) =>
      register(server, { 'x-forwarded-for': `10.0.0.${i}, ${appended}` })
    await awayFromHourBoundary()
    for (let i = 0; i < 20; i++) expect((await via('203.0.113.60', i)).status).toBe(201)
    expect((await via('203.0.113.60', 21)).status).toBe(429)
    for (let i = 0; i < 20; i++) expect((await via('203.0.113.61', i)).status).toBe(201)
    expect((await via('203.0.113.61', 21)).status).toBe(429)
  })
})
