import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issues, replaySessions } from '@/db/schema'
import { getJobsEngine } from '@/inngest/app'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { endingNow, ingestSession, loadRecording } from '../helpers/pipeline'
import { waitFor } from '../helpers/wait'

/**
 * An issue's first and last release (docs/source-maps.md), through ingest and processing: the
 * session that files it gives both, each later session with a release moves the last, and a
 * session without one leaves them.
 */

let database: TestDatabase
let organizationId: string
let key: string
let app: JobsEngine

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Releases' })).id
  key = (await createKey(database.db, { organizationId, type: 'ingest' })).key
  app = getJobsEngine()
  await app.start()
})
afterAll(async () => {
  await app.stop()
  useDatabase(undefined)
  await database.close()
})

async function processSession(externalId: string, release?: string) {
  await ingestSession(key, externalId, endingNow(loadRecording('js-error-after-click').events), {
    final: true,
    release,
  })
  return waitFor(`${externalId} to be processed`, async () => {
    const [row] = await database.db
      .select()
      .from(replaySessions)
      .where(
        and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)),
      )
    return row?.status === 'processed' ? row : undefined
  })
}

async function errorIssue() {
  const rows = await database.db
    .select()
    .from(issues)
    .where(and(eq(issues.organizationId, organizationId), eq(issues.kind, 'js_error')))
  expect(rows).toHaveLength(1)
  return rows[0]!
}

describe('issues: first and last release', () => {
  it('takes both from the filing session, moves the last with later releases, keeps it without one', async () => {
    expect((await processSession('release-1', 'v1.0.0')).release).toBe('v1.0.0')
    expect(await errorIssue()).toMatchObject({
      firstRelease: 'v1.0.0',
      lastRelease: 'v1.0.0',
      sessionCount: 1,
    })

    await processSession('release-2', 'v1.1.0')
    expect(await errorIssue()).toMatchObject({
      firstRelease: 'v1.0.0',
      lastRelease: 'v1.1.0',
      sessionCount: 2,
    })

    await processSession('release-none')
    expect(await errorIssue()).toMatchObject({
      firstRelease: 'v1.0.0',
      lastRelease: 'v1.1.0',
      sessionCount: 3,
    })
  })
})
