/**
 * The session trail end to end: a recording sent through the real ingest route and processed
 * by the jobs engine (worker thread, job steps, the record transaction) stores its entries;
 * a later pass over more of the session replaces them; readTrail reads a window of one
 * organization's session only; deleting a session takes its entries with it.
 */
import { and, asc, count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { replaySessions, sessionTimelineEntries } from '@/db/schema'
import { getJobsEngine } from '@/inngest/app'
import { analyzeEvents } from '@/lib/analysis'
import { page, SessionBuilder } from '@/lib/analysis/testing/events'
import { TRAIL_LIMITS } from '@/lib/analysis/trail'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { deleteSessions } from '@/lib/retention/delete-sessions'
import { replaceTrail } from '@/lib/sessions/store-trail'
import { readTrail } from '@/lib/sessions/trail-entries'
import { getBlobStore } from '@/lib/storage'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { endingNow, ingestSession, loadRecording } from '../helpers/pipeline'
import { waitFor } from '../helpers/wait'

let database: TestDatabase
let organizationId: string
let otherOrganizationId: string
let key: string
let app: JobsEngine

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Shop' })).id
  otherOrganizationId = (await createOrganization(database.db, { name: 'Other' })).id
  key = (await createKey(database.db, { organizationId, type: 'ingest' })).key
  app = getJobsEngine()
  await app.start()
})
afterAll(async () => {
  await app.stop()
  useDatabase(undefined)
  await database.close()
})

async function sessionRow(externalId: string) {
  const [row] = await database.db
    .select()
    .from(replaySessions)
    .where(and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)))
  return row
}

const processedThrough = (externalId: string, sequence: number) =>
  waitFor(`${externalId} to be processed through batch ${sequence}`, async () => {
    const row = await sessionRow(externalId)
    return row?.status === 'processed' && row.processedThroughSequence === sequence ? row : undefined
  })

async function storedRows(sessionId: string) {
  return database.db
    .select()
    .from(sessionTimelineEntries)
    .where(eq(sessionTimelineEntries.sessionId, sessionId))
    .orderBy(asc(sessionTimelineEntries.position))
}

describe('the stored session trail', () => {
  const events = endingNow(loadRecording('multi-page').events)
  const half = events.findIndex(
    (event) => event.type === 5 && (event.data as { tag?: string }).tag === 'navigation',
  )
  let sessionId: string

  it('is written by the processing pass, in time order, with the session’s truncated flag', async () => {
    // The session up to its SPA navigation, as one final flush.
    const sent = await ingestSession(key, 'trail-1', events.slice(0, half), { final: true, perBatch: 20 })
    const row = await processedThrough('trail-1', sent - 1)
    sessionId = row.id
    expect(row.trailTruncated).toBe(false)
    const rows = await storedRows(sessionId)
    expect(rows.map((r) => r.position)).toEqual(rows.map((_, i) => i))
    expect(
      rows.every(
        (r) => r.organizationId === organizationId && r.at === r.entry.at && r.kind === r.entry.kind,
      ),
    ).toBe(true)
    const ats = rows.map((r) => r.at)
    expect(ats).toEqual([...ats].sort((a, b) => a - b))
    expect(rows.map((r) => r.kind)).toEqual(
      expect.arrayContaining(['navigation', 'click', 'input', 'request']),
    )
    expect(rows.filter((r) => r.kind === 'navigation')).toHaveLength(2)
    // The recorder's own ingest requests are not part of what the user did.
    expect(rows.some((r) => r.entry.kind === 'request' && r.entry.url.includes('/api/v1/'))).toBe(false)
    const input = rows.find((r) => r.entry.kind === 'input')!.entry
    expect(input).toMatchObject({ kind: 'input', masked: true, value: null, length: 4 })
  })

  it('stores a session whose recorder sent fractional timestamps (rrweb sends integers; ingest takes any number)', async () => {
    const fractional = events.slice(0, half).map((event) => ({ ...event, timestamp: event.timestamp + 0.25 }))
    const sent = await ingestSession(key, 'trail-fraction', fractional, { final: true, perBatch: 20 })
    const row = await processedThrough('trail-fraction', sent - 1)
    expect(row.trailTruncated).toBe(false)
    const rows = await storedRows(row.id)
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.every((r) => Number.isInteger(r.at))).toBe(true)
  })

  it('is replaced, not added to, when a later pass analyses more of the session', async () => {
    const before = await storedRows(sessionId)
    const first = (await sessionRow('trail-1'))!
    const sent = await ingestSession(key, 'trail-1', events.slice(half), {
      final: true,
      perBatch: 20,
      firstSequence: first.processedThroughSequence! + 1,
    })
    await processedThrough('trail-1', sent - 1)
    const after = await storedRows(sessionId)
    expect(after.length).toBeGreaterThan(before.length)
    expect(after.map((r) => r.position)).toEqual(after.map((_, i) => i))
    // The first pass's entries are the start of the second's, once each.
    expect(after.slice(0, before.length - 1).map((r) => r.entry)).toEqual(
      before.slice(0, before.length - 1).map((r) => r.entry),
    )
    expect(
      after.filter((r) => r.kind === 'navigation').map((r) => (r.entry as { change: string }).change),
    ).toEqual(['load', 'load', 'navigation', 'load'])
    expect(after.some((r) => r.entry.kind === 'error' && r.entry.source === 'uncaught')).toBe(true)
  })

  it('reads a window of entries by time or position, for the session’s organization only', async () => {
    const all = await readTrail(database.db, organizationId, sessionId, { limit: 1000 })
    const stored = await storedRows(sessionId)
    expect(all).toEqual(stored.map((r) => ({ position: r.position, entry: r.entry })))

    const page = await readTrail(database.db, organizationId, sessionId, { afterPosition: 2, limit: 3 })
    expect(page.map((e) => e.position)).toEqual([3, 4, 5])

    const middle = all[Math.floor(all.length / 2)]!.entry.at
    const window = await readTrail(database.db, organizationId, sessionId, {
      fromAt: middle,
      toAt: middle + 2000,
      limit: 1000,
    })
    expect(window.length).toBeGreaterThan(0)
    expect(window.every((e) => e.entry.at >= middle && e.entry.at <= middle + 2000)).toBe(true)
    expect(window).toEqual(all.filter((e) => e.entry.at >= middle && e.entry.at <= middle + 2000))

    expect(await readTrail(database.db, otherOrganizationId, sessionId, { limit: 1000 })).toEqual([])
  })

  it('stores a full trail of hostile text in several insert statements', async () => {
    const b = new SessionBuilder().load('https://shop.example.com/', page([]))
    for (let i = 0; i <= TRAIL_LIMITS.entries; i++) b.console('log', [`line ${i} \u0000 \ud800`])
    const { trail } = await analyzeEvents(b.events)
    expect(trail.truncated).toBe(true)
    await database.db.transaction((tx) => replaceTrail(tx, { organizationId, sessionId, trail }))
    const stored = await readTrail(database.db, organizationId, sessionId, { limit: 5000 })
    expect(stored).toHaveLength(TRAIL_LIMITS.entries)
    expect(stored.at(-1)).toEqual({ position: TRAIL_LIMITS.entries - 1, entry: trail.entries.at(-1) })
    expect(stored[1]!.entry).toMatchObject({ kind: 'console', message: 'line 0 \ufffd \ufffd' })
  })

  it('goes when its session is deleted (retention)', async () => {
    await deleteSessions(database.db, getBlobStore(), { organizationId, sessionIds: [sessionId] })
    const [left] = await database.db
      .select({ n: count() })
      .from(sessionTimelineEntries)
      .where(eq(sessionTimelineEntries.sessionId, sessionId))
    expect(left!.n).toBe(0)
  })
})
