/**
 * A regression is reported with the session it came back in, at that moment (issue 34): the
 * alert's replay link used to open the issue's first session, long before it was fixed.
 */
import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DatabaseHandle } from '@/db/client'
import { issues, outbox, replaySessions, webhookDeliveries } from '@/db/schema'
import { evaluateEvent } from '@/lib/alerts/evaluate'
import type { Finding } from '@/lib/analysis/types'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { useDatabase } from '@/lib/db'
import { issueHistory } from '@/lib/issues/issue-history'
import { recordFindings } from '@/lib/issues/record-findings'
import { createOrganization } from '@/lib/orgs/create-organization'
import { EVENTS } from '@/lib/outbox/events'
import { createEndpoint } from '@/lib/webhooks/endpoints'
import { seedRule } from '../helpers/alerts'
import { createTestDatabase } from '../helpers/db'

const BASE = 'https://replays.example'
let handle: DatabaseHandle

beforeAll(async () => {
  handle = await createTestDatabase()
  useDatabase(handle)
  setConfigForTests(parseConfig({ ...process.env, BASE_URL: BASE }))
})
afterAll(async () => {
  setConfigForTests(undefined)
  useDatabase(undefined)
  await handle?.close()
})

async function session(organizationId: string, startedAt: number): Promise<string> {
  const [row] = await handle.db
    .insert(replaySessions)
    .values({
      organizationId,
      externalId: `s-${randomUUID()}`,
      startedAt: new Date(startedAt),
      lastActivityAt: new Date(startedAt + 60_000),
      entryUrl: 'https://shop.example/checkout',
      anonymousId: `anon-${randomUUID().slice(0, 8)}`,
    })
    .returning({ id: replaySessions.id })
  return row!.id
}

function finding(at: number): Finding {
  return {
    kind: 'js_error',
    fingerprint: 'regression-link-test',
    title: 'TypeError on /checkout',
    description: 'The Pay button throws.',
    priority: 'high',
    priorityReason: 'An uncaught error.',
    url: 'https://shop.example/checkout',
    pathPattern: '/checkout',
    firstTimestamp: at,
    lastTimestamp: at,
    occurrences: 1,
    trigger: null,
    evidence: { message: "TypeError: Cannot read properties of undefined (reading 'total')" },
    stepsToReplicate: '1. Open /checkout',
  }
}

const record = (organizationId: string, sessionId: string, sessionStart: number, at: number) =>
  handle.db.transaction((tx) =>
    recordFindings(tx, {
      organizationId,
      sessionId,
      sessionStart,
      release: null,
      findings: [finding(at)],
      baseUrl: BASE,
    }),
  )

describe('a regression’s links', () => {
  it('name the session it came back in and the moment, in the alert, the webhook event and the history', async () => {
    const org = await createOrganization(handle.db, { name: 'Paid', plan: 'paid' })
    const endpoint = await createEndpoint(handle.db, {
      organizationId: org.id,
      name: 'alerts',
      url: 'https://hooks.example/alerts',
      events: ['issue.recurred'],
    })
    await seedRule(handle.db, {
      organizationId: org.id,
      name: 'Regressions',
      trigger: 'issue_regressed',
      endpointId: endpoint.id,
    })
    const firstStart = Date.now() - 3_600_000
    const first = await session(org.id, firstStart)
    await record(org.id, first, firstStart, firstStart + 5_000)
    const [issue] = await handle.db.select().from(issues).where(eq(issues.organizationId, org.id))
    // Fixed after the first session, before the second.
    await handle.db
      .update(issues)
      .set({ status: 'resolved', updatedAt: new Date(firstStart + 600_000) })
      .where(eq(issues.id, issue!.id))

    const againStart = Date.now() - 1_800_000
    const again = await session(org.id, againStart)
    const recorded = await record(org.id, again, againStart, againStart + 7_250)
    expect(recorded.regressed).toEqual([issue!.id])
    const moment = `${BASE}/sessions/${again}?t=7250`

    const [event] = await handle.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.organizationId, org.id), eq(outbox.name, EVENTS.issueRecurred)))
    // The webhook event keeps its fields (the first session's preview among them) and adds the moment.
    expect(event!.payload).toMatchObject({ issueId: issue!.id, sessionId: again, replayUrl: moment })
    expect((event!.payload as { previewUrl: string }).previewUrl).toContain(first)

    await evaluateEvent(handle.db, { eventId: event!.eventId, name: EVENTS.issueRecurred })
    const [delivery] = await handle.db
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.endpointId, endpoint.id),
          eq(webhookDeliveries.eventType, 'alert.triggered'),
        ),
      )
    const alert = JSON.parse(delivery!.body) as { data: { replayUrl: string; trigger: string } }
    expect(alert.data).toMatchObject({ trigger: 'issue_regressed', replayUrl: moment })

    const history = await issueHistory(handle.db, org.id, issue!.id)
    expect(history.find((entry) => entry.kind === 'regressed')).toMatchObject({
      sessionId: again,
      offsetMs: 7_250,
    })
  })
})
