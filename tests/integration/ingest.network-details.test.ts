import { randomBytes } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { organizations, replayBatches, replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { forgetCredentials } from '@/lib/credentials/credential-cache'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { REDACTED, TRUNCATED_PREFIX } from '@/sdk/src/network-details/redact'
import { MAX_BODY_BYTES } from '@/sdk/src/options'
import { makeBatch } from '../fixtures/replay-batch'
import { SECRET_TEXT_BODIES } from '../fixtures/secret-text-bodies'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freezeRateLimitClock } from '../helpers/frozen-rate-limit'
import { sendBatch } from '../helpers/ingest'
import { storedBatchText } from '../helpers/stored-batch'

/**
 * Ingest applies the organization's network detail policy (docs/network-details.md) to every
 * batch before it is stored, whatever the recorder did: a batch sent the way a leaky or
 * misconfigured recorder would is stored redacted (`redact`) or without any detail (`drop`),
 * and a batch without details is stored byte for byte as sent.
 */

let database: TestDatabase
const keys: Record<'redact' | 'drop' | 'switch', { org: string; key: string }> = {} as never

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  for (const name of ['redact', 'drop', 'switch'] as const) {
    const org = (await createOrganization(database.db, { name })).id
    keys[name] = { org, key: (await createKey(database.db, { organizationId: org, type: 'ingest' })).key }
  }
  await database.db
    .update(organizations)
    .set({ networkRedactKeys: ['iban'] })
    .where(eq(organizations.id, keys.redact.org))
  await database.db
    .update(organizations)
    .set({ networkDetails: 'drop' })
    .where(eq(organizations.id, keys.drop.org))
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})
freezeRateLimitClock()

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl'
const SECRETS = [
  'Bearer sk_live_abc',
  'sid=s3cr3t',
  'session=zzz',
  'key-123',
  'tok-999',
  'hunter2',
  '4111111111111111',
  'DE89370400440532013000',
  JWT,
]

function leakyBatch(sessionId: string, sequence = 0) {
  const batch = makeBatch({ sessionId, sequence, events: 4 })
  const last = batch.replay.events.at(-1)!.timestamp as number
  const request = {
    name: 'https://shop.example.com/api/pay',
    url: 'https://shop.example.com/api/pay',
    method: 'POST',
    initiatorType: 'fetch',
    status: 402,
    statusText: 'Payment Required',
    timestamp: last,
    startTime: 10,
    endTime: 20,
    duration: 10,
    requestHeaders: {
      Authorization: 'Bearer sk_live_abc',
      cookie: 'sid=s3cr3t',
      'x-api-key': 'key-123',
      'content-type': 'application/json',
      'x-request-id': 'req-1',
    },
    responseHeaders: { 'set-cookie': 'session=zzz', 'content-type': 'application/json' },
    requestBody: JSON.stringify({
      token: 'tok-999',
      password: 'hunter2',
      card_number: '4111111111111111',
      iban: 'DE89370400440532013000',
      amount: 12,
    }),
    responseBody: JSON.stringify({ code: 'CARD_DECLINED', message: 'declined', detail: `x ${JWT}` }),
  }
  batch.replay.events.push({
    type: 6,
    timestamp: last + 1,
    data: { plugin: 'rrweb/network@1', payload: { requests: [request] } },
  } as (typeof batch.replay.events)[number])
  return batch
}

async function stored(sessionId: string): Promise<string[]> {
  const [session] = await database.db
    .select()
    .from(replaySessions)
    .where(eq(replaySessions.externalId, sessionId))
  const rows = await database.db
    .select()
    .from(replayBatches)
    .where(eq(replayBatches.sessionId, session!.id))
    .orderBy(replayBatches.sequence)
  return Promise.all(rows.map((row) => storedBatchText(database.db, row.blobKey)))
}

type Stored = {
  replay: {
    events: { type: number; data: { plugin?: string; payload?: { requests: Record<string, unknown>[] } } }[]
  }
}
const requestOf = (text: string) =>
  (JSON.parse(text) as Stored).replay.events.find((e) => e.data.plugin === 'rrweb/network@1')!.data.payload!
    .requests[0]!

const fresh = () => `net-${randomBytes(6).toString('hex')}`

describe('ingest: network details under the organization policy', () => {
  it('redact: stores a leaky batch with credential headers dropped and secrets redacted', async () => {
    const sessionId = fresh()
    expect((await sendBatch(leakyBatch(sessionId), { key: keys.redact.key })).status).toBe(200)
    const [text] = await stored(sessionId)
    for (const secret of SECRETS) expect(text, secret).not.toContain(secret)
    const request = requestOf(text!)
    expect(request.requestHeaders).toEqual({ 'content-type': 'application/json', 'x-request-id': 'req-1' })
    expect(request.responseHeaders).toEqual({ 'content-type': 'application/json' })
    expect(JSON.parse(request.requestBody as string)).toEqual({
      token: REDACTED,
      password: REDACTED,
      card_number: REDACTED,
      iban: REDACTED,
      amount: 12,
    })
    expect(JSON.parse(request.responseBody as string)).toEqual({
      code: 'CARD_DECLINED',
      message: 'declined',
      detail: `x ${REDACTED}`,
    })
    expect(request.status).toBe(402)
  })

  it('redact: secrets outside JSON keys (XML, SOAP, GraphQL arguments, key: value, key=value), a leaky recorder notwithstanding', async () => {
    const sessionId = fresh()
    const batch = leakyBatch(sessionId)
    const requests = (
      batch.replay.events.at(-1)!.data as { payload: { requests: Record<string, unknown>[] } }
    ).payload.requests
    const template = requests[0]!
    requests.splice(
      0,
      1,
      ...SECRET_TEXT_BODIES.map((c) => ({
        ...template,
        requestHeaders: { 'content-type': c.contentType },
        responseHeaders: { 'content-type': c.contentType },
        requestBody: c.body,
        responseBody: c.body,
      })),
    )
    expect((await sendBatch(batch, { key: keys.redact.key })).status).toBe(200)
    const [text] = await stored(sessionId)
    const storedRequests = (JSON.parse(text!) as Stored).replay.events.find(
      (e) => e.data.plugin === 'rrweb/network@1',
    )!.data.payload!.requests
    expect(storedRequests.map((r) => [r.requestBody, r.responseBody])).toEqual(
      SECRET_TEXT_BODIES.map((c) => [c.redacted, c.redacted]),
    )
  })

  it('redact: a re-send of the same bytes is stored once, the same', async () => {
    const sessionId = fresh()
    const body = JSON.stringify(leakyBatch(sessionId))
    expect((await sendBatch(body, { key: keys.redact.key })).status).toBe(200)
    const first = await stored(sessionId)
    expect((await sendBatch(body, { key: keys.redact.key })).status).toBe(200)
    expect(await stored(sessionId)).toEqual(first)
  })

  it('redact: cuts a body longer than MAX_BODY_BYTES with the marker', async () => {
    const sessionId = fresh()
    const batch = leakyBatch(sessionId)
    const request = (batch.replay.events.at(-1)!.data as { payload: { requests: Record<string, unknown>[] } })
      .payload.requests[0]!
    request.responseBody = `{"password": "p", "text": "${'a'.repeat(MAX_BODY_BYTES * 2)}`
    expect((await sendBatch(batch, { key: keys.redact.key })).status).toBe(200)
    const body = requestOf((await stored(sessionId))[0]!).responseBody as string
    expect(body.startsWith(`{"password": "${REDACTED}"`)).toBe(true)
    const text = `{"password": "${REDACTED}", "text": "${'a'.repeat(MAX_BODY_BYTES * 2)}`
    expect(body).toBe(`${text.slice(0, MAX_BODY_BYTES)}${TRUNCATED_PREFIX}${text.length} characters in all]`)
  })

  it('drop: stores no header or body at all', async () => {
    const sessionId = fresh()
    expect((await sendBatch(leakyBatch(sessionId), { key: keys.drop.key })).status).toBe(200)
    const request = requestOf((await stored(sessionId))[0]!)
    for (const field of ['requestHeaders', 'responseHeaders', 'requestBody', 'responseBody'])
      expect(request).not.toHaveProperty(field)
    expect(request).toMatchObject({ url: 'https://shop.example.com/api/pay', status: 402 })
  })

  it('stores a batch without details byte for byte, under either policy', async () => {
    for (const key of [keys.redact.key, keys.drop.key]) {
      const sessionId = fresh()
      const batch = leakyBatch(sessionId)
      const request = (
        batch.replay.events.at(-1)!.data as { payload: { requests: Record<string, unknown>[] } }
      ).payload.requests[0]!
      for (const field of ['requestHeaders', 'responseHeaders', 'requestBody', 'responseBody'])
        delete request[field]
      // Spacing a re-serialisation would not keep.
      const body = JSON.stringify(batch, null, 1)
      expect((await sendBatch(body, { key })).status).toBe(200)
      expect(await stored(sessionId)).toEqual([body])
    }
  })

  it('applies a policy change once the cached key expires (5 s, or at once where the cache is cleared)', async () => {
    const sessionId = fresh()
    expect((await sendBatch(leakyBatch(sessionId, 0), { key: keys.switch.key })).status).toBe(200)
    expect(requestOf((await stored(sessionId))[0]!)).toHaveProperty('requestBody')
    await database.db
      .update(organizations)
      .set({ networkDetails: 'drop' })
      .where(eq(organizations.id, keys.switch.org))
    forgetCredentials()
    expect((await sendBatch(leakyBatch(sessionId, 1), { key: keys.switch.key })).status).toBe(200)
    expect(requestOf((await stored(sessionId))[1]!)).not.toHaveProperty('requestBody')
  })
})
