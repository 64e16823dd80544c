import { and, eq, inArray } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issues, outbox, replaySessions } from '@/db/schema'
import { getJobsEngine } from '@/inngest/app'
import { getConfig, setConfigForTests } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { intervalFigures } from '@/lib/insights/figures'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { getOrganizationOverview } from '@/lib/orgs/overview'
import { EVENTS } from '@/lib/outbox/events'
import { recorderBatches } from '../helpers/batches'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { sendBatch } from '../helpers/ingest'
import { endingNow, loadRecording } from '../helpers/pipeline'
import { waitFor } from '../helpers/wait'

/**
 * Automated traffic (docs/hostile-input.md#automated-traffic), over the ingest route and the
 * Data API on a real database with the in-process engine processing: a WebDriver session, a
 * bot user agent (the recorder's or only the request's), and a reproduction run are stored
 * with why they are automated, analysed, and change no issue, count or status.
 */

let database: TestDatabase
let organizationId: string
let ingestKey: string
let apiKey: string
let app: JobsEngine

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Automation' })).id
  ingestKey = (await createKey(database.db, { organizationId, type: 'ingest' })).key
  apiKey = (await createKey(database.db, { organizationId, type: 'api', write: true })).key
  app = getJobsEngine()
  await app.start()
})
afterAll(async () => {
  await app.stop()
  setConfigForTests(undefined)
  useDatabase(undefined)
  await database.close()
})

const HEADLESS_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36'
const GOOGLEBOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'

type Sender = {
  automation?: string
  userAgent?: string | null
  headerUserAgent?: string
}

/** The recording with an uncaught TypeError, sent as one session through the ingest route. */
async function send(externalId: string, how: Sender = {}, final = true): Promise<Response[]> {
  const batches = recorderBatches({
    sessionId: externalId,
    events: endingNow(loadRecording('js-error-after-click').events),
    perBatch: 40,
    final,
    user: { anonymousId: `anon-${externalId}` },
  })
  const responses: Response[] = []
  for (const batch of batches) {
    const metadata = {
      ...batch.metadata,
      ...(how.userAgent === undefined ? {} : { userAgent: how.userAgent }),
      ...(how.automation === undefined ? {} : { automation: how.automation }),
    }
    const headers: Record<string, string> = how.headerUserAgent ? { 'user-agent': how.headerUserAgent } : {}
    responses.push(await sendBatch({ ...batch, metadata }, { key: ingestKey, headers }))
  }
  return responses
}

async function sessionRow(externalId: string) {
  const [row] = await database.db
    .select()
    .from(replaySessions)
    .where(and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)))
  return row
}

const processed = (externalId: string) =>
  waitFor(`${externalId} to be processed`, async () => {
    const row = await sessionRow(externalId)
    return row?.status === 'processed' ? row : undefined
  })

async function listed(query: Record<string, string> = {}) {
  const response = await api.listSessions(apiKey, { limit: '100', ...query })
  expect(response.status).toBe(200)
  const body = (await response.json()) as { sessions: { id: string; automation: string | null }[] }
  return body.sessions
}

const issueEvents = () =>
  database.db
    .select({ id: outbox.id })
    .from(outbox)
    .where(
      and(
        eq(outbox.organizationId, organizationId),
        inArray(outbox.name, [EVENTS.issueCreated, EVENTS.issueRecurred, EVENTS.signalMatched]),
      ),
    )

describe('automated traffic', () => {
  it('stores reproduction, webdriver and bot sessions apart: no issue, count, regression or listing by default', async () => {
    await send('person')
    const person = await processed('person')
    expect(person.automation).toBeNull()
    const [issue] = await database.db.select().from(issues).where(eq(issues.organizationId, organizationId))
    expect(issue).toMatchObject({ kind: 'js_error', sessionCount: 1 })
    // Resolved: the next person's session showing the error would reopen it and alert.
    expect((await api.patchIssue(apiKey, issue!.id, { status: 'resolved' })).status).toBe(200)

    const day = { start: new Date(Date.now() - 3_600_000), end: new Date(Date.now() + 3_600_000) }
    const before = {
      overview: await getOrganizationOverview(database.db, organizationId),
      figures: await intervalFigures(database.db, organizationId, day.start, day.end),
      events: (await issueEvents()).length,
    }
    expect(before.overview.sessions).toBe(1)

    const automated = {
      webdriver: { automation: 'webdriver' },
      reproduction: { automation: 'reproduction' },
      // The same headless browser and a crawler are marked alike, by the recorder's user agent
      // or, for a recorder that does not say, by the request's.
      'headless-ua': { userAgent: HEADLESS_UA },
      'bot-ua': { userAgent: GOOGLEBOT_UA },
      'old-recorder': { userAgent: null, headerUserAgent: HEADLESS_UA },
    } satisfies Record<string, Sender>
    for (const [externalId, how] of Object.entries(automated))
      for (const response of await send(externalId, how)) expect(response.status).toBe(200)
    const rows = await Promise.all(Object.keys(automated).map(processed))
    expect(Object.fromEntries(rows.map((row) => [row.externalId, row.automation]))).toEqual({
      webdriver: 'webdriver',
      reproduction: 'reproduction',
      'headless-ua': 'bot',
      'bot-ua': 'bot',
      'old-recorder': 'bot',
    })
    // Analysed, so viewable: the same error as the person's session was seen in each.
    for (const row of rows)
      expect(row).toMatchObject({ errorCount: person.errorCount, trailTruncated: false })

    const after = await database.db.select().from(issues).where(eq(issues.organizationId, organizationId))
    expect(after).toHaveLength(1)
    expect(after[0]).toMatchObject({ id: issue!.id, status: 'resolved', sessionCount: 1 })
    const answered = (await (await api.getIssue(apiKey, issue!.id)).json()) as {
      issue: { sessionCount: number }
    }
    expect(answered.issue.sessionCount).toBe(1)
    expect((await issueEvents()).length).toBe(before.events)
    expect(await getOrganizationOverview(database.db, organizationId)).toEqual(before.overview)
    const figures = await intervalFigures(database.db, organizationId, day.start, day.end)
    expect({ sessions: figures.sessions, users: figures.users, topPages: figures.topPages }).toEqual({
      sessions: before.figures.sessions,
      users: before.figures.users,
      topPages: before.figures.topPages,
    })

    expect((await listed()).map((s) => s.id)).toEqual([person.id])
    expect((await listed({ issueId: issue!.id })).map((s) => s.id)).toEqual([person.id])
    const only = await listed({ automation: 'only' })
    expect(only.map((s) => s.automation).sort()).toEqual(['bot', 'bot', 'bot', 'reproduction', 'webdriver'])
    expect(await listed({ automation: 'include' })).toHaveLength(6)
    expect((await api.listSessions(apiKey, { automation: 'yes' })).status).toBe(400)
  })

  it('lets a later batch mark a session no pass has counted, never clear a mark or uncount a person', async () => {
    // Receiving, not yet processed: a later batch's mark holds.
    await send('late-mark', {}, false)
    const later = recorderBatches({
      sessionId: 'late-mark',
      events: endingNow(loadRecording('clean').events),
      firstSequence: 10,
      final: false,
    })[0]!
    await sendBatch(
      { ...later, metadata: { ...later.metadata, automation: 'webdriver' } },
      { key: ingestKey },
    )
    expect((await sessionRow('late-mark'))?.automation).toBe('webdriver')
    // A batch without a mark does not clear it.
    await sendBatch({ ...later, replay: { ...later.replay, sequence: 11 } }, { key: ingestKey })
    expect((await sessionRow('late-mark'))?.automation).toBe('webdriver')
    // The person's session was counted: a forged batch cannot take it out of the figures.
    await sendBatch(
      {
        ...later,
        session: { ...later.session, id: 'person' },
        metadata: { ...later.metadata, automation: 'bot' },
      },
      { key: ingestKey },
    )
    expect((await sessionRow('person'))?.automation).toBeNull()
  })

  it('refuses an unknown metadata.automation like any bad field', async () => {
    const [response] = await send('unknown-kind', { automation: 'robot' })
    expect(response!.status).toBe(400)
    expect(JSON.stringify(await response!.json())).toContain('metadata.automation')
    expect(await sessionRow('unknown-kind')).toBeUndefined()
  })

  it('stores nothing of automated traffic with INGEST_AUTOMATED_SESSIONS=drop, and answers as for a stored batch', async () => {
    setConfigForTests({ ...getConfig(), ingest: { automatedSessions: 'drop' } })
    try {
      for (const how of [
        { automation: 'reproduction' },
        { userAgent: GOOGLEBOT_UA },
        { headerUserAgent: HEADLESS_UA, userAgent: null },
      ])
        for (const response of await send(`dropped-${JSON.stringify(how)}`, how)) {
          expect(response.status).toBe(200)
          expect(await response.json()).toEqual({ ok: true })
        }
      const all = await database.db
        .select({ externalId: replaySessions.externalId })
        .from(replaySessions)
        .where(eq(replaySessions.organizationId, organizationId))
      expect(all.filter((row) => row.externalId.startsWith('dropped-'))).toEqual([])
      // A person's batch is still stored.
      for (const response of await send('kept-in-drop-mode', {}, false)) expect(response.status).toBe(200)
      expect(await sessionRow('kept-in-drop-mode')).toMatchObject({ automation: null })
    } finally {
      setConfigForTests(undefined)
    }
  })
})
