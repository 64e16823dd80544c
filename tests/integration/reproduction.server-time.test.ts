/**
 * Time comes from the server where it ranks anything (issue 32): sessions sent through the real
 * ingest route and processed as the jobs engine would, then read over the Data API. Sessions
 * dated in the far future are clamped and cannot take over an issue's reproduction or set its
 * last-seen time; the reproduction prefers the issue's usual origin and never uses automation.
 */
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueSessions, issues, replaySessions, sessionTimelineEntries } from '@/db/schema'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'
import type { TrailEntry } from '@/lib/analysis/trail'
import type { RrwebEvent } from '@/lib/analysis/types'
import { setAnalysisPoolForTests } from '@/lib/analysis-worker/session-analysis'
import { getConfig } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { CLOCK_SKEW_MS } from '@/lib/ingest/clock-skew'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { processSession } from '@/lib/processing/process-session'
import { bestSession } from '@/lib/reproduction/best-session'
import { getBlobStore } from '@/lib/storage'
import { recorderBatches } from '../helpers/batches'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { sendBatch } from '../helpers/ingest'
import { seedIssue } from '../helpers/seed'
import { seedIssueSession } from '../helpers/seed-trail'

const SITE = 'https://shop.example.com'
const MESSAGE = "Cannot read properties of undefined (reading 'code')"
const STACK = `TypeError: ${MESSAGE}\n    at applyCoupon (${SITE}/assets/app.js:1:200)`
/** The last millisecond a Date can hold: the year 275760. */
const FAR_FUTURE = 8.64e15 - 60_000

let database: TestDatabase
let organizationId: string
let ingestKey: string
let readKey: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Shop' })).id
  ingestKey = (await createKey(database.db, { organizationId, type: 'ingest' })).key
  readKey = (await createKey(database.db, { organizationId, type: 'api' })).key
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

/** The checkout page; `before` buttons are clicked, then "Apply coupon", which throws. */
function checkoutSession(start: number, before: string[]): RrwebEvent[] {
  const buttons = [...before, 'Apply coupon'].map((name, i) =>
    el(10 + 2 * i, 'button', { id: `b${i}` }, [txt(11 + 2 * i, name)]),
  )
  const b = new SessionBuilder(start).load(`${SITE}/checkout`, page(buttons)).wait(500)
  for (let i = 0; i < before.length; i++) b.click(10 + 2 * i).wait(800)
  return b
    .click(10 + 2 * before.length)
    .wait(5)
    .sdkError('TypeError', MESSAGE, STACK).events
}

/** Sends a session through the ingest route and processes it as the jobs engine would. */
async function recordSession(externalId: string, events: RrwebEvent[]): Promise<string> {
  for (const batch of recorderBatches({
    sessionId: externalId,
    events,
    perBatch: 4,
    final: false,
    url: `${SITE}/checkout`,
  })) {
    const response = await sendBatch(batch, { key: ingestKey })
    expect(response.status).toBe(200)
  }
  const [session] = await database.db
    .select({ id: replaySessions.id })
    .from(replaySessions)
    .where(and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)))
  const config = getConfig()
  const outcome = await processSession(
    {
      db: database.db,
      blobs: getBlobStore(),
      jobs: idleEngine,
      baseUrl: config.baseUrl,
      ingestUrl: config.ingestUrl,
    },
    {
      sessionId: session!.id,
      runId: `run-${externalId}`,
      step: {
        run: async (_id, fn) => JSON.parse(JSON.stringify((await fn()) ?? null)),
        sleep: async () => {},
      },
    },
  )
  expect(outcome.status).toBe('processed')
  return session!.id
}

describe('times a recording carries', () => {
  it('twenty sessions dated in the far future neither take over the reproduction nor date the issue in the future', async () => {
    const genuine = await recordSession('genuine', checkoutSession(Date.now() - 120_000, ['Add item']))
    // Sent after the genuine one, with the same error and a shorter path to it.
    const forged: string[] = []
    for (let i = 0; i < 20; i++)
      forged.push(await recordSession(`forged-${i}`, checkoutSession(FAR_FUTURE, [])))
    const now = Date.now()

    const [issue] = await database.db
      .select({ id: issues.id, sessionCount: issues.sessionCount })
      .from(issues)
      .where(and(eq(issues.organizationId, organizationId), eq(issues.kind, 'js_error')))
    expect(issue!.sessionCount).toBe(21)
    const response = await api.getReproduction(readKey, issue!.id)
    expect(response.status).toBe(200)
    const { reproduction } = (await response.json()) as { reproduction: { sessionId: string; test: string } }
    expect(reproduction.sessionId).toBe(genuine)
    expect(reproduction.test).toContain('"Add item"')

    // The issue's times (the dashboard lists by them): last seen is the server's, and no
    // occurrence lies in the future.
    const [times] = await database.db
      .select({ firstSeenAt: issues.firstSeenAt, lastSeenAt: issues.lastSeenAt })
      .from(issues)
      .where(eq(issues.id, issue!.id))
    expect(times!.lastSeenAt.getTime()).toBeLessThanOrEqual(now)
    expect(times!.firstSeenAt.getTime()).toBeLessThanOrEqual(now)
    const links = await database.db
      .select({ at: issueSessions.firstOccurrenceAt })
      .from(issueSessions)
      .where(eq(issueSessions.issueId, issue!.id))
    expect(links).toHaveLength(21)
    for (const link of links) expect(link.at.getTime()).toBeLessThanOrEqual(now)

    // A forged session's own times: clamped at ingest and in its trail to the skew past receipt.
    const { session } = (await (await api.getSession(readKey, forged[0]!)).json()) as {
      session: { startedAt: string; lastActivityAt: string }
    }
    expect(Date.parse(session.startedAt)).toBeLessThanOrEqual(now + CLOCK_SKEW_MS)
    expect(Date.parse(session.lastActivityAt)).toBeLessThanOrEqual(now + CLOCK_SKEW_MS)
    const trail = await database.db
      .select({ at: sessionTimelineEntries.at })
      .from(sessionTimelineEntries)
      .where(eq(sessionTimelineEntries.sessionId, forged[0]!))
    expect(trail.length).toBeGreaterThan(0)
    for (const entry of trail) expect(entry.at).toBeLessThanOrEqual(now + CLOCK_SKEW_MS)
  })
})

describe('which session the reproduction uses', () => {
  /** A trail on `origin` that clicks `clicks` buttons, then "Apply coupon", which throws. */
  function errorTrail(t0: number, clicks: string[], origin = SITE): TrailEntry[] {
    const pageUrl = `${origin}/checkout`
    const target = (name: string) => ({
      tag: 'button',
      selector: `button#${name.toLowerCase().replaceAll(' ', '-')}`,
      role: 'button',
      name,
      text: name,
      testId: null,
      id: null,
      type: 'button',
      href: null,
    })
    const trail: TrailEntry[] = [{ kind: 'navigation', at: t0, pageUrl, url: pageUrl, change: 'load' }]
    for (const [i, name] of [...clicks, 'Apply coupon'].entries())
      trail.push({ kind: 'click', at: t0 + 1000 * (i + 1), pageUrl, target: target(name), count: 1 })
    const at = trail.at(-1)!.at + 5
    trail.push({
      kind: 'error',
      at,
      pageUrl,
      message: `TypeError: ${MESSAGE}`,
      stack: null,
      source: 'uncaught',
    })
    return trail
  }
  const seed = async (issueId: string, t0: number, clicks: string[], origin = SITE) => {
    const trail = errorTrail(t0, clicks, origin)
    return seedIssueSession(database.db, organizationId, issueId, {
      trail,
      firstOccurrenceAt: trail.at(-1)!.at,
    })
  }

  it('prefers the issue’s usual origin, never an automated session, and names the chosen one’s origin and user agent', async () => {
    const issue = await seedIssue(database.db, organizationId, {
      kind: 'js_error',
      title: `TypeError: ${MESSAGE}`,
    })
    const t0 = Date.UTC(2026, 0, 10)
    await seed(issue.id, t0, ['Add item', 'Checkout'])
    const usual = await seed(issue.id, t0 + 60_000, ['Add item'])
    await database.db
      .update(replaySessions)
      .set({ userAgent: 'Mozilla/5.0 Firefox/140.0' })
      .where(eq(replaySessions.id, usual.id))
    // Shorter and more recent, but on another origin, and then a headless run of the shortest path.
    await seed(issue.id, t0 + 120_000, [], 'https://staging.example.net')
    const bot = await seed(issue.id, t0 + 180_000, [])
    await database.db.update(replaySessions).set({ automation: 'bot' }).where(eq(replaySessions.id, bot.id))

    const { reproduction } = (await (await api.getReproduction(readKey, issue.id)).json()) as {
      reproduction: { sessionId: string }
    }
    expect(reproduction.sessionId).toBe(usual.id)
    // What the file's header names (build-reproduction reads it from the chosen session).
    const chosen = await bestSession(database.db, organizationId, issue)
    expect(chosen).toMatchObject({
      sessionId: usual.id,
      origin: SITE,
      userAgent: 'Mozilla/5.0 Firefox/140.0',
    })
  })
})
