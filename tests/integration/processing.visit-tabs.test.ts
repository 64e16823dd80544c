import { and, count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GET as getEvents } from '@/app/api/dashboard/sessions/[sessionId]/events/route'
import { issues, replayBatches, replaySessions } from '@/db/schema'
import { getJobsEngine } from '@/inngest/app'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'
import type { RrwebEvent } from '@/lib/analysis/types'
import { setAnalysisPoolForTests } from '@/lib/analysis-worker/session-analysis'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { recorderBatches } from '../helpers/batches'
import { dashboardMember } from '../helpers/dashboard-session'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { heldAnalysisPool } from '../helpers/held-analysis'
import { sendBatch } from '../helpers/ingest'
import { waitFor } from '../helpers/wait'

/**
 * One visit across two tabs (docs/session-processing.md#visits-across-tabs): the recorder
 * sends both tabs' batches under one session id, one sequence, each naming its window. The
 * visit is analysed as one session (pages and errors counted per visit) without one tab's page
 * looking like a reload of the other's, and the player gets both tabs' events.
 */

let database: TestDatabase
let organizationId: string
let key: string
let app: JobsEngine

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Tabs shop' })).id
  key = (await createKey(database.db, { organizationId, type: 'ingest' })).key
  app = getJobsEngine()
  await app.start()
})
afterAll(async () => {
  await app.stop()
  useDatabase(undefined)
  await database.close()
})

const SESSION = 'visit-two-tabs'
const start = Date.now() - 120_000
const home = page([el(10, 'button', { id: 'add' }, [txt(11, 'Add item')])])
const pricing = page([el(10, 'h1', {}, [txt(11, 'Pricing')])])

function batch(
  windowId: string,
  sequence: number,
  events: RrwebEvent[],
  flush: 'normal' | 'final',
  sessionId = SESSION,
) {
  const [body] = recorderBatches({ sessionId, events, url: 'https://shop.example/' })
  return {
    ...body!,
    session: { ...body!.session, windowId, startedAt: start },
    replay: { events, sequence },
    flush,
  }
}

async function send(body: unknown) {
  const response = await sendBatch(body, { key })
  expect(response.status).toBe(200)
}

async function sessionRow(externalId: string) {
  const [row] = await database.db
    .select()
    .from(replaySessions)
    .where(and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)))
  return row
}

async function playerEvents(sessionId: string) {
  const member = await dashboardMember(database.db, organizationId)
  const response = await getEvents(
    new Request(`http://localhost:3000/api/dashboard/sessions/${sessionId}/events`, {
      headers: { cookie: member.cookie },
    }),
    { params: Promise.resolve({ sessionId }) },
  )
  expect(response.status).toBe(200)
  return (await response.json()) as (RrwebEvent & { windowId?: string })[]
}

describe('a visit across two tabs', () => {
  it('stores both tabs under one session and counts pages and errors per visit', async () => {
    // Tab A loads the home page; tab B opens pricing while A is live and fails there; back in
    // A, rrweb snapshots the home page again (same document) and A fails too.
    const tabA1 = new SessionBuilder(start).load('https://shop.example/', home).click(10)
    const tabB = new SessionBuilder(start + 2_000)
      .load('https://shop.example/pricing', pricing)
      .sdkError('TypeError', 'prices is undefined')
    const tabA2 = new SessionBuilder(start + 4_000)
      .checkout('https://shop.example/', home)
      .sdkError('RangeError', 'quantity out of range')
    const sent = [
      batch('tab-a', 0, tabA1.events, 'normal'),
      batch('tab-b', 1, tabB.events, 'normal'),
      batch('tab-a', 2, tabA2.events, 'final'),
    ]
    for (const body of sent) await send(body)
    // A re-send of a tab's batch (the recorder's retry) is stored once.
    await send(sent[1])

    const session = await waitFor('the visit to be processed', async () => {
      const [row] = await database.db
        .select()
        .from(replaySessions)
        .where(and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, SESSION)))
      return row?.status === 'processed' ? row : undefined
    })
    const stored = await database.db
      .select({ windowId: replayBatches.windowId, sequence: replayBatches.sequence })
      .from(replayBatches)
      .where(eq(replayBatches.sessionId, session.id))
      .orderBy(replayBatches.sequence)
    expect(stored).toEqual([
      { windowId: 'tab-a', sequence: 0 },
      { windowId: 'tab-b', sequence: 1 },
      { windowId: 'tab-a', sequence: 2 },
    ])
    // Two pages (one per tab): tab A's second snapshot is not a new page after tab B's.
    expect(session.pageCount).toBe(2)
    expect(session.errorCount).toBe(2)
    expect(session.processedThroughSequence).toBe(2)
    const errors = await database.db
      .select({ n: count() })
      .from(issues)
      .where(and(eq(issues.organizationId, organizationId), eq(issues.kind, 'js_error')))
    expect(errors[0]!.n).toBe(2)

    // The player's events: every tab's, in time order, each naming its tab.
    const member = await dashboardMember(database.db, organizationId)
    const response = await getEvents(
      new Request(`http://localhost:3000/api/dashboard/sessions/${session.id}/events`, {
        headers: { cookie: member.cookie },
      }),
      { params: Promise.resolve({ sessionId: session.id }) },
    )
    expect(response.status).toBe(200)
    const events = (await response.json()) as (RrwebEvent & { windowId?: string })[]
    expect(events).toHaveLength(tabA1.events.length + tabB.events.length + tabA2.events.length)
    expect(events.map((event) => event.windowId)).toEqual([
      ...tabA1.events.map(() => 'tab-a'),
      ...tabB.events.map(() => 'tab-b'),
      ...tabA2.events.map(() => 'tab-a'),
    ])
    expect(events.map(({ windowId: _, ...event }) => event)).toEqual([
      ...tabA1.events,
      ...tabB.events,
      ...tabA2.events,
    ])
  })

  it("keeps two tabs' batches that took one sequence, also when one arrives during the pass", async () => {
    // The tabs share the sequence counter through localStorage, which cannot take a number
    // atomically: tab B takes 1 while tab A does. Tab B's batch arrives while the pass that
    // tab A's final flush asked for is reading the visit, so it must ask for another pass.
    const visit = 'visit-one-sequence'
    const tabA1 = new SessionBuilder(start).load('https://shop.example/', home).click(10)
    const tabB = new SessionBuilder(start + 2_000)
      .load('https://shop.example/pricing', pricing)
      .sdkError('TypeError', 'prices is undefined')
    const tabA2 = new SessionBuilder(start + 4_000)
      .checkout('https://shop.example/', home)
      .sdkError('RangeError', 'quantity out of range')
    const held = heldAnalysisPool()
    await setAnalysisPoolForTests(held.pool)
    try {
      await send(batch('tab-a', 0, tabA1.events, 'normal', visit))
      await send(batch('tab-a', 1, tabA2.events, 'final', visit))
      await waitFor('the pass to read the visit', async () => held.held() >= 1, 30_000)
      const tabBBatch = batch('tab-b', 1, tabB.events, 'final', visit)
      await send(tabBBatch)
      // Tab B's retry is stored once, as a one-tab re-send always was.
      await send(tabBBatch)
      held.release()

      const session = await waitFor('the whole visit to be processed', async () => {
        const row = await sessionRow(visit)
        return row?.status === 'processed' && row.errorCount === 2 ? row : undefined
      })
      const stored = await database.db
        .select({ windowId: replayBatches.windowId, sequence: replayBatches.sequence })
        .from(replayBatches)
        .where(eq(replayBatches.sessionId, session.id))
        .orderBy(replayBatches.sequence, replayBatches.windowId)
      expect(stored).toEqual([
        { windowId: 'tab-a', sequence: 0 },
        { windowId: 'tab-a', sequence: 1 },
        { windowId: 'tab-b', sequence: 1 },
      ])
      expect(session.batchCount).toBe(3)
      expect(session.eventCount).toBe(tabA1.events.length + tabA2.events.length + tabB.events.length)
      expect(session.pageCount).toBe(2)
      expect(session.processedThroughSequence).toBe(1)

      const events = await playerEvents(session.id)
      expect(events.map(({ windowId: _, ...event }) => event)).toEqual([
        ...tabA1.events,
        ...tabB.events,
        ...tabA2.events,
      ])
    } finally {
      await setAnalysisPoolForTests(undefined)
    }
  }, 120_000)
})
