import { randomBytes } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { ReplayBatch } from '@/lib/ingest/schema'
import { sessionFields } from '@/lib/ingest/session-fields'
import { storeBatchInTransaction } from '@/lib/ingest/store-batch-transaction'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { makeBatch } from '../fixtures/replay-batch'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { sendBatch } from '../helpers/ingest'

/**
 * `metadata.degraded` (the recorder's mutation guard, docs/recorder.md#mutation-guard) on both
 * ways ingest stores a batch: once a batch says so the session stays degraded, and the Data API
 * answers carry it.
 */

let database: TestDatabase
let organizationId: string
let ingestKey: string
let apiKey: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Degraded' })).id
  ingestKey = (await createKey(database.db, { organizationId, type: 'ingest' })).key
  apiKey = (await createKey(database.db, { organizationId, type: 'api' })).key
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

function batch(sessionId: string, sequence: number, degraded?: boolean) {
  const body = makeBatch({ sessionId, sequence, events: 3 })
  return degraded === undefined ? body : { ...body, metadata: { ...body.metadata, degraded } }
}

const noJobs: JobsEngine = {
  kind: 'in-process',
  send: async () => {},
  start: async () => {},
  stop: async () => {},
}

const paths = {
  async statement(body: ReturnType<typeof batch>) {
    expect((await sendBatch(body, { key: ingestKey })).status).toBe(200)
  },
  async transaction(body: ReturnType<typeof batch>) {
    const parsed = ReplayBatch.parse(body)
    const events = parsed.replay.events
    const lastTimestamp = Math.floor(events[events.length - 1]!.timestamp)
    await storeBatchInTransaction(database.db, noJobs, {
      organizationId,
      batch: parsed,
      fields: sessionFields(parsed, lastTimestamp),
      firstTimestamp: Math.floor(events[0]!.timestamp),
      lastTimestamp,
      body: new Uint8Array(Buffer.from(JSON.stringify(body))),
      blobKey: `test/${randomBytes(8).toString('hex')}`,
    })
  },
}

async function sessionRow(externalId: string) {
  const [row] = await database.db
    .select({ id: replaySessions.id, degraded: replaySessions.degraded })
    .from(replaySessions)
    .where(and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)))
  return row!
}

describe.each(['statement', 'transaction'] as const)('ingest on the %s path: metadata.degraded', (path) => {
  const store = paths[path]
  const fresh = () => `${path}-${randomBytes(6).toString('hex')}`

  it('leaves a session without it not degraded', async () => {
    const sessionId = fresh()
    await store(batch(sessionId, 0))
    await store(batch(sessionId, 1, false))
    expect((await sessionRow(sessionId)).degraded).toBe(false)
  })

  it('marks the session from the first batch that says so, and keeps it marked', async () => {
    const sessionId = fresh()
    await store(batch(sessionId, 0))
    await store(batch(sessionId, 1, true))
    expect((await sessionRow(sessionId)).degraded).toBe(true)
    await store(batch(sessionId, 2, false))
    await store(batch(sessionId, 3))
    expect((await sessionRow(sessionId)).degraded).toBe(true)
  })

  it('creates a degraded session from a first batch that says so, and the API answers carry it', async () => {
    const sessionId = fresh()
    await store(batch(sessionId, 0, true))
    const { id } = await sessionRow(sessionId)
    const one = (await (await api.getSession(apiKey, id)).json()) as { session: { degraded: boolean } }
    expect(one.session.degraded).toBe(true)
    const list = (await (await api.listSessions(apiKey, { limit: 100 })).json()) as {
      sessions: { id: string; degraded: boolean }[]
    }
    expect(list.sessions.find((s) => s.id === id)?.degraded).toBe(true)
    expect(list.sessions.some((s) => s.degraded === false)).toBe(true)
  })
})

it('refuses a degraded that is not true or false', async () => {
  const response = await sendBatch(
    { ...batch(`bad-${randomBytes(6).toString('hex')}`, 0), metadata: { degraded: 'yes' } },
    { key: ingestKey },
  )
  expect(response.status).toBe(400)
})
