import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { replaySessions } from '@/db/schema'
import { getJobsEngine } from '@/inngest/app'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { getSession } from '@/lib/sessions/get-session'
import { sessionIssues } from '@/lib/sessions/session-issues'
import { sessionTimeline, type TimelineEntry } from '@/lib/sessions/session-timeline'
import { ingestAs, waitForProcessed } from '../helpers/dashboard-session'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { endingNow, loadRecording } from '../helpers/pipeline'

let database: TestDatabase
let app: JobsEngine
let orgId: string
let key: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  app = getJobsEngine()
  await app.start()
  orgId = (await createOrganization(database.db, { name: 'Shop' })).id
  key = (await createKey(database.db, { organizationId: orgId, type: 'ingest' })).key
})
afterAll(async () => {
  await app.stop()
  useDatabase(undefined)
  await database.close()
})

async function processedSession(recording: string) {
  const id = await ingestAs(
    database.db,
    key,
    `timeline-${recording}`,
    endingNow(loadRecording(recording).events),
  )
  await waitForProcessed(database.db, id)
  return getSession(database.db, orgId, id)
}

async function timelineOf(session: Awaited<ReturnType<typeof getSession>>) {
  const issues = await sessionIssues(database.db, orgId, session.id)
  const timeline = sessionTimeline(session, issues)
  if (!timeline) throw new Error(`no timeline for session ${session.id} (${session.status})`)
  return timeline
}

const rows = (entries: TimelineEntry[], kind: TimelineEntry['kind']) =>
  entries.filter((entry) => entry.kind === kind).map((entry) => entry.label)

describe('sessionTimeline', () => {
  it('lists page loads, the SPA navigation, clicks, the error and its issue, in time order', async () => {
    const session = await processedSession('multi-page')
    const { entries, truncated, earlierPass } = await timelineOf(session)
    expect(truncated).toBe(false)
    expect(earlierPass).toBe(false)
    expect(rows(entries, 'page')).toEqual([
      'Opened /',
      'Opened /products',
      'Opened /products?page=2',
      'Opened /cart',
    ])
    expect(rows(entries, 'click')).toEqual(
      expect.arrayContaining(['Clicked “Add to cart”', 'Clicked “Checkout”']),
    )
    expect(rows(entries, 'error')).toEqual([
      expect.stringContaining("Cannot read properties of null (reading 'zip')"),
    ])
    const [issue] = await sessionIssues(database.db, orgId, session.id)
    expect(issue).toMatchObject({ kind: 'js_error', status: 'unresolved', occurrences: 1 })
    expect(rows(entries, 'issue')).toEqual([`Issue: ${issue!.title}`])
    const times = entries.map((entry) => entry.at)
    expect(times).toEqual([...times].sort((a, b) => a - b))
    // The error comes right after the click on "Checkout", and its issue at the same moment.
    const checkout = entries.findIndex((entry) => entry.label === 'Clicked “Checkout”')
    const error = entries.findIndex((entry) => entry.kind === 'error')
    expect(error).toBeGreaterThan(checkout)
    expect(entries.find((entry) => entry.kind === 'issue')!.at).toBe(entries[error]!.at)
    expect(entries[0]!.at).toBeGreaterThanOrEqual(session.startedAt.getTime())
  })

  // Before issue 14 a session without a usable digest was analysed inline, in the page request;
  // now no request analyses: the digest of an earlier pass is shown as such, and without one
  // there is no timeline (the page says the session waits for its analysis).
  it('uses the digest of an earlier pass and never analyses when there is no usable digest', async () => {
    const session = await getSession(
      database.db,
      orgId,
      (
        await database.db
          .select()
          .from(replaySessions)
          .where(eq(replaySessions.externalId, 'timeline-multi-page'))
      )[0]!.id,
    )
    const fromDigest = await timelineOf(session)
    // Still receiving (a later batch came in): the stored digest is from an earlier pass.
    expect(await timelineOf({ ...session, status: 'receiving' })).toEqual({
      ...fromDigest,
      earlierPass: true,
    })
    const issues = await sessionIssues(database.db, orgId, session.id)
    expect(sessionTimeline({ ...session, digest: { pages: 'not a list' } }, issues)).toBeNull()
    expect(sessionTimeline({ ...session, status: 'receiving', digest: null }, issues)).toBeNull()
    expect(sessionTimeline({ ...session, status: 'failed', digest: null }, issues)).toBeNull()
  })

  it('names failed requests with method, path and outcome', async () => {
    const { entries } = await timelineOf(await processedSession('network-failed'))
    expect(rows(entries, 'network')).toEqual([
      'POST /api/sync got no response',
      'PUT /api/profile answered 503',
    ])
  })

  it('collapses a burst of clicks and marks it as a rage click', async () => {
    const { entries } = await timelineOf(await processedSession('rage-click'))
    expect(rows(entries, 'rage')).toEqual(['Rage click on “Save”'])
    expect(rows(entries, 'click')).toContain('Clicked “Save” 6 times')
  })

  it('marks a dead click and a console error', async () => {
    const dead = await timelineOf(await processedSession('dead-click'))
    expect(rows(dead.entries, 'dead')).toEqual(['Dead click on “Compare plans”: nothing happened'])
    const consoleError = await timelineOf(await processedSession('console-error'))
    expect(rows(consoleError.entries, 'error')).toEqual([
      expect.stringContaining('Payment widget failed to load'),
    ])
    expect(rows(consoleError.entries, 'issue')).toHaveLength(1)
  })

  it('answers an empty timeline for a session without events of note', async () => {
    const { entries } = await timelineOf(await processedSession('clean'))
    expect(rows(entries, 'error')).toEqual([])
    expect(rows(entries, 'issue')).toEqual([])
    expect(rows(entries, 'page').length).toBeGreaterThan(0)
  })
})

describe('sessionIssues', () => {
  it("never answers another organization's issues for the session", async () => {
    const [session] = await database.db
      .select()
      .from(replaySessions)
      .where(eq(replaySessions.externalId, 'timeline-multi-page'))
    const other = (await createOrganization(database.db, { name: 'Other' })).id
    expect(await sessionIssues(database.db, other, session!.id)).toEqual([])
    expect(await sessionIssues(database.db, orgId, session!.id)).toHaveLength(1)
  })
})
