import { randomBytes } from 'node:crypto'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createKey } from '@/lib/credentials/create-key'
import { revokeKey } from '@/lib/credentials/revoke-key'
import { useDatabase } from '@/lib/db'
import { resolveIngestKey } from '@/lib/ingest/resolve-ingest-key'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createMemoryRateLimiter, type MemoryRateLimiter, useRateLimiter } from '@/lib/ratelimit'
import { RATE_LIMITS } from '@/lib/ratelimit/policies'
import { makeBatch } from '../fixtures/replay-batch'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { sendBatch } from '../helpers/ingest'

/**
 * Ingest keys are public, so anyone can present made-up ones from anywhere. Whatever they
 * send, the database is asked about keys not recently seen only within the per-address and
 * shared budgets, the in-process limiter keeps a bounded number of counters, every answer has
 * the spec's shape, and working keys keep ingesting.
 *
 * How an address is derived from a request is another module's concern (and depends on the
 * deployment); here each request names its address in a test header. Lookups are counted by
 * wrapping the key resolver, which is the only code that asks the database about a key.
 */
vi.mock('@/lib/ratelimit/client-address', () => ({
  clientAddress: (headers: { get(name: string): string | null }) =>
    headers.get('x-test-client-address') ?? 'no-address',
}))
vi.mock('@/lib/ingest/resolve-ingest-key', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@/lib/ingest/resolve-ingest-key')>()
  return { ...actual, resolveIngestKey: vi.fn(actual.resolveIngestKey) }
})

const lookups = () => vi.mocked(resolveIngestKey).mock.calls.length
const PER_ADDRESS = RATE_LIMITS.ingestKeyLookupsPerAddress.limit
const SHARED = RATE_LIMITS.ingestKeyMisses.limit
// Below what the floods would otherwise leave: the bound itself is met through the route.
const MAX_ENTRIES = 200

let database: TestDatabase
let organizationId: string
let limiter: MemoryRateLimiter

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Flooded' })).id
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})
// A frozen clock: every count below happens within one window, however slow the machine.
beforeEach(() => {
  const frozen = Date.now()
  limiter = createMemoryRateLimiter({ now: () => frozen, maxEntries: MAX_ENTRIES })
  useRateLimiter(limiter)
  vi.mocked(resolveIngestKey).mockClear()
})
afterEach(() => {
  useRateLimiter(undefined)
})

const madeUp = () => `svc_pk_${randomBytes(32).toString('base64url')}`
const workingKey = async () => (await createKey(database.db, { organizationId, type: 'ingest' })).key
const floodBody = JSON.stringify(makeBatch({ sessionId: 'flood', events: 1 }))
const batch = () => JSON.stringify(makeBatch({ sessionId: `s-${randomBytes(6).toString('hex')}`, events: 2 }))

function send(address: string, key: string, body = floodBody): Promise<Response> {
  return sendBatch(body, { key, headers: { 'x-test-client-address': address } })
}

/** The spec's 401 or 429, with the CORS and request-id headers every ingest answer has. */
async function refusal(response: Response): Promise<401 | 429> {
  expect(response.headers.get('access-control-allow-origin')).toBe('*')
  expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  const body = await response.json()
  if (response.status === 401) {
    expect(body).toEqual({ error: 'Invalid or revoked API key' })
    return 401
  }
  expect(response.status).toBe(429)
  expect(body).toEqual({ error: 'Rate limit exceeded' })
  expect(response.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/)
  return 429
}

/** Made-up keys, round robin over the addresses; the count of each answer status. */
async function flood(addresses: string[], perAddress: number) {
  const statuses = { 401: 0, 429: 0 }
  for (let i = 0; i < perAddress; i++)
    for (const address of addresses) statuses[await refusal(await send(address, madeUp()))]++
  return statuses
}

/** Everything a client can observe of an answer but the per-request id. */
async function observable(response: Response) {
  const headers = [...response.headers].filter(([name]) => name !== 'x-request-id').sort()
  return { status: response.status, headers, body: await response.text() }
}

const addresses = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i}`)

describe('ingest: a flood of made-up keys', () => {
  it('looks up at most the per-address budget from each address, and keeps the limiter bounded', async () => {
    const flooders = addresses('flooder', 5)
    const statuses = await flood(flooders, 600)

    expect(statuses).toEqual({ 401: 5 * PER_ADDRESS, 429: 5 * (600 - PER_ADDRESS) })
    expect(lookups()).toBe(5 * PER_ADDRESS)
    // Unbounded, the admitted keys, the addresses and the shared budget would hold 306.
    expect(limiter.size).toBe(MAX_ENTRIES)

    // A working key from an address that did not flood ingests.
    const key = await workingKey()
    expect((await send('bystander', key, batch())).status).toBe(200)
    expect(lookups()).toBe(5 * PER_ADDRESS + 1)
  })

  it('stops asking the database once the shared budget for failing keys is spent', async () => {
    // Used before the flood: it is recently seen, so it keeps ingesting from anywhere.
    const regular = await workingKey()
    expect((await send('regular-visitor', regular, batch())).status).toBe(200)

    // Each address stays within its own budget; together they spend the shared one.
    const many = addresses('botnet', Math.ceil((SHARED * 2) / (PER_ADDRESS / 2)))
    const statuses = await flood(many, PER_ADDRESS / 2)
    // The lookup that found the budget spent is the last one.
    expect(lookups()).toBe(1 + SHARED + 1)
    expect(statuses[401]).toBe(SHARED + 1)
    expect(statuses[429]).toBe(many.length * (PER_ADDRESS / 2) - SHARED - 1)
    expect(limiter.size).toBeLessThanOrEqual(MAX_ENTRIES)

    for (const address of ['regular-visitor', 'botnet-0', 'somewhere-else'])
      expect((await send(address, regular, batch())).status, address).toBe(200)
    // A key nobody used recently waits, like a made-up one, whatever its address.
    expect(await refusal(await send('somewhere-else', await workingKey(), batch()))).toBe(429)
    expect(lookups()).toBe(1 + SHARED + 1 + 3)
  })

  it('answers a working key not recently seen exactly like a made-up key once an address is over budget', async () => {
    await flood(['noisy'], PER_ADDRESS + 10)
    const before = lookups()
    const working = await observable(await send('noisy', await workingKey()))
    const made = await observable(await send('noisy', madeUp()))
    expect(working.status).toBe(429)
    expect(made).toEqual(working)
    expect(lookups()).toBe(before)
  })

  it('lets working keys from the same address ingest while other addresses flood', async () => {
    const key = await workingKey()
    const flooding = flood(addresses('elsewhere', 4), PER_ADDRESS + 20)
    const ours: number[] = []
    for (let i = 0; i < 20; i++) ours.push((await send('office', key, batch())).status)
    await flooding
    expect(ours).toEqual(Array(20).fill(200))
    // A second key from the same address, first seen during the flood.
    expect((await send('office', await workingKey(), batch())).status).toBe(200)
  })

  it('adds no counters for an address over its budget, however many keys it makes up', async () => {
    await flood(['tireless'], PER_ADDRESS)
    // One per admitted key, the address's budget and the shared budget.
    expect(limiter.size).toBe(PER_ADDRESS + 2)
    expect(await flood(['tireless'], 500)).toEqual({ 401: 0, 429: 500 })
    expect(limiter.size).toBe(PER_ADDRESS + 2)
    expect(lookups()).toBe(PER_ADDRESS)
  })

  it('refuses a key that just failed again without asking the database', async () => {
    const key = madeUp()
    for (let i = 0; i < 5; i++) expect(await refusal(await send('retrying-client', key))).toBe(401)
    expect(lookups()).toBe(1)
  })

  it('still refuses a recently working key at the first request after its revocation', async () => {
    const created = await createKey(database.db, { organizationId, type: 'ingest' })
    expect((await send('site', created.key, batch())).status).toBe(200)
    await revokeKey(database.db, { id: created.id })
    expect(await refusal(await send('site', created.key, batch()))).toBe(401)
  })
})
