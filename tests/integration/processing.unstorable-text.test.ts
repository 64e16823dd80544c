/**
 * Text a page wrote that Postgres cannot store in jsonb (NUL, an unpaired surrogate) reaches
 * issues through error messages and captured response bodies. It must be made storable on the
 * way, not fail the session's analysis and lose every issue of it.
 */
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { issues, replaySessions } from '@/db/schema'
import { page, SessionBuilder } from '@/lib/analysis/testing/events'
import { setAnalysisPoolForTests } from '@/lib/analysis-worker/session-analysis'
import { getConfig } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { processSession } from '@/lib/processing/process-session'
import { getBlobStore } from '@/lib/storage'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { ingestSession } from '../helpers/pipeline'

let database: TestDatabase
let organizationId: string
let key: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Shop' })).id
  key = (await createKey(database.db, { organizationId, type: 'ingest' })).key
})
afterAll(async () => {
  await setAnalysisPoolForTests(undefined)
  useDatabase(undefined)
  await database.close()
})

const idleEngine: JobsEngine = {
  kind: 'in-process',
  send: async () => {},
  start: async () => {},
  stop: async () => {},
}

it('files issues whose message and server message held NUL and unpaired surrogates', async () => {
  const origin = 'https://shop.example.com'
  const b = new SessionBuilder(Date.now() - 120_000)
    .load(`${origin}/checkout`, page([]))
    .wait(1000)
    .sdkError(
      'TypeError',
      'bad\u0000value \ud800 here',
      'TypeError: bad\u0000value\n    at f (https://shop.example.com/a.js:1:2)',
    )
    .wait(500)
    .request({
      url: `${origin}/api/cart`,
      method: 'POST',
      status: 500,
      details: { responseBody: JSON.stringify({ message: 'Out\u0000of \udc00stock' }) },
    })
    .wait(31_000)
    .mouseMove()
  await ingestSession(key, 'unstorable-1', b.events, { final: false })
  const [session] = await database.db
    .select({ id: replaySessions.id })
    .from(replaySessions)
    .where(
      and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, 'unstorable-1')),
    )
  const config = getConfig()
  await processSession(
    {
      db: database.db,
      blobs: getBlobStore(),
      jobs: idleEngine,
      baseUrl: config.baseUrl,
      ingestUrl: config.ingestUrl,
    },
    {
      sessionId: session!.id,
      runId: 'run-unstorable',
      step: {
        run: async (_id, fn) => JSON.parse(JSON.stringify((await fn()) ?? null)),
        sleep: async () => {},
      },
    },
  )
  const [row] = await database.db
    .select({ status: replaySessions.status })
    .from(replaySessions)
    .where(eq(replaySessions.id, session!.id))
  expect(row!.status).toBe('processed')
  const filed = await database.db
    .select({ kind: issues.kind, evidence: issues.evidence, title: issues.title })
    .from(issues)
    .where(eq(issues.organizationId, organizationId))
  expect(filed.map((i) => i.kind).sort()).toEqual(['js_error', 'network_error'])
  const network = filed.find((i) => i.kind === 'network_error')!
  expect((network.evidence as { serverMessage?: string }).serverMessage).toBe('Out\uFFFDof \uFFFDstock')
})
