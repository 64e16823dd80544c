import { randomUUID } from 'node:crypto'
import { and, asc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DatabaseHandle } from '@/db/client'
import {
  alertMessages,
  alertRuleEvents,
  alertRules,
  integrationDeliveries,
  outbox,
  webhookDeliveries,
} from '@/db/schema'
import { MAX_SPIKE_CANDIDATES } from '@/lib/alerts/candidates'
import { databaseNow } from '@/lib/alerts/clock'
import { deliverDueSlack } from '@/lib/alerts/deliver-slack'
import { sweepDigests } from '@/lib/alerts/digests'
import { evaluateEvent } from '@/lib/alerts/evaluate'
import { windowStartOf } from '@/lib/alerts/filters'
import { listRules, ruleHistory } from '@/lib/alerts/history'
import { firstAttempts } from '@/lib/alerts/jobs'
import { ALERT_HISTORY_DAYS, pruneAlertHistory } from '@/lib/alerts/prune'
import { createRule, MAX_RULES_PER_ORG, setRulePaused } from '@/lib/alerts/rules'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { useDatabase } from '@/lib/db'
import { InvalidInputError } from '@/lib/errors'
import { issueEventData, toIssueEventData } from '@/lib/issues/event-data'
import { createOrganization } from '@/lib/orgs/create-organization'
import { EVENTS, type EventName, type EventPayload, InvalidEventPayloadError } from '@/lib/outbox/events'
import { createDeliverer } from '@/lib/webhooks/deliver'
import { createEndpoint } from '@/lib/webhooks/endpoints'
import { verifyWebhookSignature } from '@/lib/webhooks/verify'
import { type SlackReceiver, seedRule, seedSlackIntegration, startSlackReceiver } from '../helpers/alerts'
import { createTestDatabase } from '../helpers/db'
import { seedInsight, seedIssue, seedIssues } from '../helpers/seed'
import { linkIssue, seedSession } from '../helpers/sessions'
import { createTestPki, loopbackResolver, startReceiver } from '../helpers/webhooks'

let handle: DatabaseHandle
let receiver: SlackReceiver
const delays = [0, 0, 0]
const WINDOW = 10
// A fixed moment one second into a window: the test drives time, it never sleeps.
const now = new Date(windowStartOf(new Date(), WINDOW).getTime() + 1000)
const windowEnd = new Date(windowStartOf(now, WINDOW).getTime() + WINDOW * 60_000)

beforeAll(async () => {
  handle = await createTestDatabase()
  useDatabase(handle)
  receiver = await startSlackReceiver()
  setConfigForTests(
    parseConfig({ ...process.env, SLACK_WEBHOOK_HOSTS: receiver.host, BASE_URL: 'https://replays.example' }),
  )
})
afterAll(async () => {
  setConfigForTests(undefined)
  useDatabase(undefined)
  await receiver?.close()
  await handle?.close()
})

async function slackOrg(plan: 'free' | 'paid' = 'free') {
  const org = await createOrganization(handle.db, { name: 'Acme', plan })
  const integration = await seedSlackIntegration(handle.db, org.id, `http://${receiver.host}/services/T/B/x`)
  return { org, integration }
}

/** Outbox rows for events, written directly (the evaluation reads only the row). */
async function outboxEvents<N extends EventName>(
  organizationId: string,
  name: N,
  payloads: EventPayload<N>[],
) {
  const rows = []
  for (let i = 0; i < payloads.length; i += 500)
    rows.push(
      ...(await handle.db
        .insert(outbox)
        .values(payloads.slice(i, i + 500).map((payload) => ({ organizationId, name, payload })))
        .returning({ eventId: outbox.eventId })),
    )
  return rows.map((r) => r.eventId)
}

/** An issue.created event of the issue, or an issue.recurred one in a session it was never seen in (no occurrence to open). */
const issueEvent = async (
  organizationId: string,
  issueId: string,
  name: typeof EVENTS.issueCreated | typeof EVENTS.issueRecurred = EVENTS.issueCreated,
) => {
  const data = await issueEventData(handle.db, issueId)
  const sessionId = randomUUID()
  const [eventId] =
    name === EVENTS.issueCreated
      ? await outboxEvents(organizationId, name, [data])
      : await outboxEvents(organizationId, name, [
          { ...data, sessionId, replayUrl: `/sessions/${sessionId}` },
        ])
  return eventId!
}

const decisionsOf = async (ruleId: string) =>
  (
    await handle.db
      .select()
      .from(alertRuleEvents)
      .where(eq(alertRuleEvents.ruleId, ruleId))
      .orderBy(asc(alertRuleEvents.createdAt))
  ).map((e) => e.decision)

describe('a flood of new issues', () => {
  it('sends at most max_per_window messages and one digest of the rest when the window ends', async () => {
    const { org, integration } = await slackOrg()
    const N = 5
    const rule = await seedRule(handle.db, {
      organizationId: org.id,
      name: 'New issues',
      trigger: 'issue_created',
      integrationId: integration.id,
      windowMinutes: WINDOW,
      maxPerWindow: N,
    })
    const issues = await seedIssues(handle.db, org.id, 1000)
    const eventIds = await outboxEvents(org.id, EVENTS.issueCreated, issues.map(toIssueEventData))
    // All at once, and every event twice (a retried job): the rule's lock and the unique
    // (rule, event) index keep both the limit and the once-only.
    const results = await Promise.all(
      [...eventIds, ...eventIds.slice(0, 100)].map((eventId) =>
        evaluateEvent(handle.db, { eventId, name: EVENTS.issueCreated }, now),
      ),
    )
    const slack = results.flatMap((r) => r.slack)
    expect(slack).toHaveLength(N)
    const decisions = await decisionsOf(rule.id)
    expect(decisions).toHaveLength(1000)
    expect(decisions.filter((d) => d === 'sent')).toHaveLength(N)
    expect(decisions.filter((d) => d === 'digest')).toHaveLength(1000 - N)

    // Not before the window ends; then exactly one digest, even with two sweeps at once.
    expect((await sweepDigests(handle.db, now)).digests).toBe(0)
    const [a, b] = await Promise.all([sweepDigests(handle.db, windowEnd), sweepDigests(handle.db, windowEnd)])
    expect(a.digests + b.digests).toBe(1)
    expect((await sweepDigests(handle.db, windowEnd)).digests).toBe(0)
    const messages = await handle.db.select().from(alertMessages).where(eq(alertMessages.ruleId, rule.id))
    expect(messages.filter((m) => m.kind === 'single')).toHaveLength(N)
    const [digest] = messages.filter((m) => m.kind === 'digest')
    expect(digest).toMatchObject({ items: 1000 - N, windowStart: windowStartOf(now, WINDOW) })

    const before = receiver.received.length
    await deliverDueSlack(handle.db, { delays })
    expect(receiver.received.length - before).toBe(N + 1)
    const bodies = receiver.received.slice(before).map((r) => JSON.stringify(r.body))
    const digestBody = bodies.find((b) => b.includes('New issues: digest'))!
    expect(digestBody).toContain(`${1000 - N} events (${1000 - N} distinct)`)
    expect(digestBody).toContain(`and ${1000 - N - 10} more`)
    expect(digestBody).toContain(`https://replays.example/settings/alerts/${rule.id}`)
  }, 120_000)
})

describe('rule decisions', () => {
  it('refuses a stored payload that does not match its event, deciding nothing', async () => {
    const { org, integration } = await slackOrg()
    const rule = await seedRule(handle.db, {
      organizationId: org.id,
      name: 'New issues',
      trigger: 'issue_created',
      integrationId: integration.id,
    })
    const issue = await seedIssue(handle.db, org.id)
    // Written around enqueueEvent (an older version, a hand-made fix): only some of the fields.
    const [row] = await handle.db
      .insert(outbox)
      .values({ organizationId: org.id, name: EVENTS.issueCreated, payload: { issueId: issue.id } })
      .returning({ eventId: outbox.eventId })
    await expect(
      evaluateEvent(handle.db, { eventId: row!.eventId, name: EVENTS.issueCreated }, now),
    ).rejects.toThrow(InvalidEventPayloadError)
    expect(await decisionsOf(rule.id)).toEqual([])
  })

  it('holds an issue back within its cooldown, and alerts it again after', async () => {
    const { org, integration } = await slackOrg()
    const rule = await seedRule(handle.db, {
      organizationId: org.id,
      name: 'Regressions',
      trigger: 'issue_regressed',
      integrationId: integration.id,
      issueCooldownMinutes: 60,
    })
    const issue = await seedIssue(handle.db, org.id)
    const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000)
    for (const minutes of [0, 30, 61]) {
      const eventId = await issueEvent(org.id, issue.id, EVENTS.issueRecurred)
      await evaluateEvent(handle.db, { eventId, name: EVENTS.issueRecurred }, at(minutes))
    }
    expect(await decisionsOf(rule.id)).toEqual(['sent', 'held_cooldown', 'sent'])
  })

  it('applies priority, kind and URL filters, and skips paused rules', async () => {
    const { org, integration } = await slackOrg()
    const rule = await seedRule(handle.db, {
      organizationId: org.id,
      name: 'Critical checkout errors',
      trigger: 'issue_created',
      integrationId: integration.id,
      filters: { priorities: ['critical'], kinds: ['js_error'], urlContains: '/Checkout' },
    })
    const evidence = (url: string) => ({ pageUrl: url, pathPattern: '/x' })
    const matching = await seedIssue(handle.db, org.id, {
      priority: 'critical',
      evidence: evidence('https://shop.example/checkout/pay'),
    })
    const wrongPriority = await seedIssue(handle.db, org.id, {
      priority: 'low',
      evidence: evidence('https://shop.example/checkout'),
    })
    const wrongKind = await seedIssue(handle.db, org.id, {
      priority: 'critical',
      kind: 'rage_click',
      evidence: evidence('https://shop.example/checkout'),
    })
    const wrongUrl = await seedIssue(handle.db, org.id, {
      priority: 'critical',
      evidence: evidence('https://shop.example/cart'),
    })
    for (const issue of [matching, wrongPriority, wrongKind, wrongUrl])
      await evaluateEvent(
        handle.db,
        { eventId: await issueEvent(org.id, issue.id), name: EVENTS.issueCreated },
        now,
      )
    const events = await handle.db.select().from(alertRuleEvents).where(eq(alertRuleEvents.ruleId, rule.id))
    expect(events.map((e) => e.issueId)).toEqual([matching.id])

    await setRulePaused(handle.db, { organizationId: org.id }, rule.id, true)
    const another = await seedIssue(handle.db, org.id, {
      priority: 'critical',
      evidence: evidence('https://shop.example/checkout'),
    })
    const result = await evaluateEvent(
      handle.db,
      { eventId: await issueEvent(org.id, another.id), name: EVENTS.issueCreated },
      now,
    )
    expect(result.decisions).toEqual([])
  })

  it('sends to a webhook endpoint as alert.triggered and alert.digest', async () => {
    const org = await createOrganization(handle.db, { name: 'Paid', plan: 'paid' })
    const endpoint = await createEndpoint(handle.db, {
      organizationId: org.id,
      name: 'alerts',
      url: 'https://hooks.example/alerts',
      events: ['issue.created'],
    })
    const rule = await seedRule(handle.db, {
      organizationId: org.id,
      name: 'To the endpoint',
      trigger: 'issue_created',
      endpointId: endpoint.id,
      maxPerWindow: 1,
      windowMinutes: WINDOW,
    })
    for (let i = 0; i < 3; i++) {
      const issue = await seedIssue(handle.db, org.id)
      await evaluateEvent(
        handle.db,
        { eventId: await issueEvent(org.id, issue.id), name: EVENTS.issueCreated },
        now,
      )
    }
    await sweepDigests(handle.db, windowEnd)
    const rows = await handle.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.endpointId, endpoint.id)))
    expect(rows.map((r) => r.eventType).sort()).toEqual(['alert.digest', 'alert.triggered'])
    const triggered = JSON.parse(rows.find((r) => r.eventType === 'alert.triggered')!.body)
    expect(triggered).toMatchObject({
      event: 'alert.triggered',
      data: { orgId: org.id, ruleId: rule.id, trigger: 'issue_created' },
    })
    const digest = JSON.parse(rows.find((r) => r.eventType === 'alert.digest')!.body)
    expect(digest.data).toMatchObject({ orgId: org.id, ruleId: rule.id, events: 2, subjects: 2, more: 0 })
    const messages = await handle.db.select().from(alertMessages).where(eq(alertMessages.ruleId, rule.id))
    expect(messages.every((m) => m.webhookDeliveryId !== null && m.integrationDeliveryId === null)).toBe(true)
    expect(new Set(rows.map((r) => r.eventId))).toEqual(new Set(messages.map((m) => m.id)))
  })

  it('delivers alert.triggered signed to the endpoint, through the webhooks machinery', async () => {
    const pki = createTestPki()
    const hooks = await startReceiver(pki.issue(['hooks.test']))
    const deliverer = createDeliverer({
      resolver: loopbackResolver({ 'hooks.test': ['127.0.0.1'] }),
      ca: pki.caCert,
      allowPrivate: true,
    })
    try {
      const org = await createOrganization(handle.db, { name: 'Paid', plan: 'paid' })
      const endpoint = await createEndpoint(handle.db, {
        organizationId: org.id,
        name: 'alerts',
        url: `https://hooks.test:${hooks.port}/alerts`,
        events: ['insight.generated'],
      })
      await seedRule(handle.db, {
        organizationId: org.id,
        name: 'Signed',
        trigger: 'issue_created',
        endpointId: endpoint.id,
      })
      const issue = await seedIssue(handle.db, org.id, { title: 'Pay button dead' })
      const queued = await evaluateEvent(
        handle.db,
        { eventId: await issueEvent(org.id, issue.id), name: EVENTS.issueCreated },
        now,
      )
      expect(await firstAttempts(handle.db, deliverer, queued, delays)).toBe(1)
      const [got] = hooks.received
      expect(got!.headers['service-event']).toBe('alert.triggered')
      verifyWebhookSignature(got!.body, got!.headers['service-signature'] as string, endpoint.secret)
      expect(JSON.parse(got!.body)).toMatchObject({
        event: 'alert.triggered',
        data: {
          title: 'Pay button dead',
          issueId: issue.id,
          url: `https://replays.example/issues/${issue.id}`,
        },
      })
    } finally {
      await deliverer.close()
      await hooks.close()
      pki.dispose()
    }
  })

  it('alerts on each issue rising in an insight, once however often the insight is evaluated', async () => {
    const { org, integration } = await slackOrg()
    const rule = await seedRule(handle.db, {
      organizationId: org.id,
      name: 'Spikes',
      trigger: 'issue_spiking',
      integrationId: integration.id,
    })
    const issue = await seedIssue(handle.db, org.id, { evidence: { pathPattern: '/checkout' } })
    for (let i = 0; i < 5; i++) {
      const session = await seedSession(handle.db, org.id)
      await linkIssue(handle.db, session, issue.id, session.startedAt)
    }
    const insight = await seedInsight(handle.db, org.id, {
      intervalStart: new Date(Date.now() - 3_600_000),
      intervalEnd: new Date(Date.now() + 3_600_000),
    })
    const [eventId] = await outboxEvents(org.id, EVENTS.insightGenerated, [
      { insightId: insight.id, orgId: org.id, intervalStart: insight.intervalStart.toISOString() },
    ])
    const first = await evaluateEvent(handle.db, { eventId: eventId!, name: EVENTS.insightGenerated }, now)
    const again = await evaluateEvent(handle.db, { eventId: eventId!, name: EVENTS.insightGenerated }, now)
    expect(first.decisions.map((d) => d.decision)).toEqual(['sent'])
    expect(again.decisions).toEqual([])
    const [event] = await handle.db.select().from(alertRuleEvents).where(eq(alertRuleEvents.ruleId, rule.id))
    expect(event).toMatchObject({ issueId: issue.id, trigger: 'issue_spiking' })
    expect(event!.eventId).not.toBe(eventId)
  })

  it('alerts on at most the 20 most widespread issues of a spike', async () => {
    const { org, integration } = await slackOrg()
    const rule = await seedRule(handle.db, {
      organizationId: org.id,
      name: 'Spikes',
      trigger: 'issue_spiking',
      integrationId: integration.id,
    })
    const seeded = []
    for (let i = 0; i < MAX_SPIKE_CANDIDATES + 5; i++) {
      const issue = await seedIssue(handle.db, org.id, {
        title: `Rising ${i}`,
        sessionCount: i + 1,
        evidence: { pathPattern: '/checkout' },
      })
      const session = await seedSession(handle.db, org.id)
      await linkIssue(handle.db, session, issue.id, session.startedAt)
      seeded.push(issue)
    }
    const insight = await seedInsight(handle.db, org.id, {
      intervalStart: new Date(Date.now() - 3_600_000),
      intervalEnd: new Date(Date.now() + 3_600_000),
    })
    const [eventId] = await outboxEvents(org.id, EVENTS.insightGenerated, [
      { insightId: insight.id, orgId: org.id, intervalStart: insight.intervalStart.toISOString() },
    ])
    const result = await evaluateEvent(handle.db, { eventId: eventId!, name: EVENTS.insightGenerated }, now)
    expect(result.decisions).toHaveLength(MAX_SPIKE_CANDIDATES)
    const events = await handle.db.select().from(alertRuleEvents).where(eq(alertRuleEvents.ruleId, rule.id))
    // The five with the fewest sessions are the ones left out.
    expect(new Set(events.map((e) => e.issueId))).toEqual(new Set(seeded.slice(5).map((i) => i.id)))
  })
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('windows and the clock', () => {
  async function digestRule(windowMinutes = WINDOW) {
    const { org, integration } = await slackOrg()
    const rule = await seedRule(handle.db, {
      organizationId: org.id,
      name: 'Digest',
      trigger: 'issue_created',
      integrationId: integration.id,
      mode: 'digest',
      windowMinutes,
    })
    const event = async () => issueEvent(org.id, (await seedIssue(handle.db, org.id)).id)
    return { org, rule, event }
  }

  it('a decision that waited on the rule lock takes the database clock after the wait', async () => {
    const { rule, event } = await digestRule()
    const eventId = await event()
    let released = new Date(0)
    let evaluation: Promise<unknown> = Promise.resolve()
    await handle.db.transaction(async (tx) => {
      await tx.select().from(alertRules).where(eq(alertRules.id, rule.id)).for('update')
      evaluation = evaluateEvent(handle.db, { eventId, name: EVENTS.issueCreated })
      await sleep(300)
      released = await databaseNow(tx)
    })
    await evaluation
    const [decided] = await handle.db
      .select()
      .from(alertRuleEvents)
      .where(eq(alertRuleEvents.ruleId, rule.id))
    expect(decided!.createdAt.getTime()).toBeGreaterThanOrEqual(released.getTime())
    expect(decided!.windowStart).toEqual(windowStartOf(decided!.createdAt, WINDOW))
  })

  it("a decision committing while its window's digest is written is in that digest", async () => {
    const { org, rule, event } = await digestRule()
    // A window long past, so this sweep finds no other test's windows.
    const at = new Date('2020-01-01T12:05:00Z')
    const end = new Date('2020-01-01T12:10:00Z')
    await evaluateEvent(handle.db, { eventId: await event(), name: EVENTS.issueCreated }, at)
    const late = await event()
    let sweep: Promise<unknown> = Promise.resolve()
    await handle.db.transaction(async (tx) => {
      // As decide() does: the rule's lock, then the event row, committed after the sweep began.
      await tx.select().from(alertRules).where(eq(alertRules.id, rule.id)).for('update')
      sweep = sweepDigests(handle.db, end)
      await sleep(300)
      await tx.insert(alertRuleEvents).values({
        ruleId: rule.id,
        organizationId: org.id,
        eventId: late,
        trigger: 'issue_created',
        title: 'Late',
        decision: 'digest',
        windowStart: windowStartOf(at, WINDOW),
        windowMinutes: WINDOW,
        createdAt: at,
      })
    })
    await sweep
    const digests = await handle.db.select().from(alertMessages).where(eq(alertMessages.ruleId, rule.id))
    expect(digests).toEqual([expect.objectContaining({ kind: 'digest', items: 2 })])
  })

  it('an edited window length leaves decided events in their own window, digested at its own end', async () => {
    const { rule, event } = await digestRule(10)
    const at = new Date('2020-01-02T12:05:00Z')
    await evaluateEvent(handle.db, { eventId: await event(), name: EVENTS.issueCreated }, at)
    await handle.db.update(alertRules).set({ windowMinutes: 60 }).where(eq(alertRules.id, rule.id))
    await evaluateEvent(
      handle.db,
      { eventId: await event(), name: EVENTS.issueCreated },
      new Date('2020-01-02T12:06:00Z'),
    )
    expect((await sweepDigests(handle.db, new Date('2020-01-02T12:10:00Z'))).digests).toBe(1)
    expect((await sweepDigests(handle.db, new Date('2020-01-02T12:59:00Z'))).digests).toBe(0)
    expect((await sweepDigests(handle.db, new Date('2020-01-02T13:00:00Z'))).digests).toBe(1)
    const digests = await handle.db
      .select()
      .from(alertMessages)
      .where(eq(alertMessages.ruleId, rule.id))
      .orderBy(asc(alertMessages.windowMinutes))
    expect(digests).toEqual([
      expect.objectContaining({ windowStart: new Date('2020-01-02T12:00:00Z'), windowMinutes: 10, items: 1 }),
      expect.objectContaining({ windowStart: new Date('2020-01-02T12:00:00Z'), windowMinutes: 60, items: 1 }),
    ])
  })
})

describe('history retention', () => {
  it('prunes events and messages older than 90 days, keeps the rest', async () => {
    const { org, integration } = await slackOrg()
    const rule = await seedRule(handle.db, {
      organizationId: org.id,
      name: 'Old',
      trigger: 'issue_created',
      integrationId: integration.id,
    })
    const days = (n: number) => new Date(Date.now() - n * 86_400_000)
    for (const at of [days(ALERT_HISTORY_DAYS + 1), days(1)]) {
      const [message] = await handle.db
        .insert(alertMessages)
        .values({ ruleId: rule.id, organizationId: org.id, kind: 'single', createdAt: at })
        .returning()
      await handle.db.insert(alertRuleEvents).values({
        ruleId: rule.id,
        organizationId: org.id,
        eventId: crypto.randomUUID(),
        trigger: 'issue_created',
        title: 'T',
        decision: 'sent',
        messageId: message!.id,
        windowStart: at,
        windowMinutes: WINDOW,
        createdAt: at,
      })
    }
    const pruned = await pruneAlertHistory(handle.db, { chunk: 1 })
    expect(pruned.events).toBeGreaterThanOrEqual(1)
    const left = await handle.db.select().from(alertRuleEvents).where(eq(alertRuleEvents.ruleId, rule.id))
    const messages = await handle.db.select().from(alertMessages).where(eq(alertMessages.ruleId, rule.id))
    expect(left).toHaveLength(1)
    expect(left[0]!.createdAt.getTime()).toBeGreaterThan(days(2).getTime())
    expect(messages).toHaveLength(1)
    expect(messages[0]!.createdAt.getTime()).toBeGreaterThan(days(2).getTime())
  })
})

describe('rules', () => {
  it('hold the per-organization cap when rules are created at once', async () => {
    const { org, integration } = await slackOrg()
    const ctx = { organizationId: org.id, userId: null }
    const valid = { name: 'Rule', trigger: 'issue_created', destination: `integration:${integration.id}` }
    for (let i = 0; i < MAX_RULES_PER_ORG - 1; i++)
      await seedRule(handle.db, {
        organizationId: org.id,
        name: `Rule ${i}`,
        trigger: 'issue_created',
        integrationId: integration.id,
      })
    const results = await Promise.allSettled([
      createRule(handle.db, ctx, valid),
      createRule(handle.db, ctx, valid),
    ])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    expect(await handle.db.$count(alertRules, eq(alertRules.organizationId, org.id))).toBe(MAX_RULES_PER_ORG)
  })

  it('refuse bad input with clear messages and a destination of another organization', async () => {
    const { org, integration } = await slackOrg()
    const other = await slackOrg()
    const ctx = { organizationId: org.id, userId: null }
    const valid = { name: 'Rule', trigger: 'issue_created', destination: `integration:${integration.id}` }
    await expect(createRule(handle.db, ctx, { ...valid, name: '' })).rejects.toThrow('Name is required.')
    await expect(createRule(handle.db, ctx, { ...valid, windowMinutes: '0' })).rejects.toThrow(
      'The window must be at least 1.',
    )
    await expect(createRule(handle.db, ctx, { ...valid, maxPerWindow: '101' })).rejects.toThrow(
      'Messages per window must be at most 100.',
    )
    await expect(
      createRule(handle.db, ctx, { ...valid, trigger: 'signal_matched', priorities: ['high'] }),
    ).rejects.toThrow('Priority and kind filters apply to issues')
    await expect(
      createRule(handle.db, ctx, { ...valid, destination: `integration:${other.integration.id}` }),
    ).rejects.toThrow(InvalidInputError)
    const rule = await createRule(handle.db, ctx, {
      ...valid,
      priorities: ['critical'],
      urlContains: ' /pay ',
    })
    expect(rule).toMatchObject({
      integrationId: integration.id,
      filters: { priorities: ['critical'], urlContains: '/pay' },
    })
  })

  it('history lists the decisions and the messages with their delivery status', async () => {
    const { org, integration } = await slackOrg()
    const rule = await seedRule(handle.db, {
      organizationId: org.id,
      name: 'History',
      trigger: 'issue_created',
      integrationId: integration.id,
      maxPerWindow: 1,
    })
    for (let i = 0; i < 2; i++) {
      const issue = await seedIssue(handle.db, org.id)
      const result = await evaluateEvent(
        handle.db,
        { eventId: await issueEvent(org.id, issue.id), name: EVENTS.issueCreated },
        now,
      )
      await deliverDueSlack(handle.db, { delays, ids: result.slack })
    }
    const history = await ruleHistory(handle.db, org.id, rule.id)
    expect(history!.events.map((e) => e.decision).sort()).toEqual(['digest', 'sent'])
    expect(history!.messages).toEqual([
      expect.objectContaining({ kind: 'single', status: 'succeeded', attempts: 1 }),
    ])
    expect(await ruleHistory(handle.db, (await slackOrg()).org.id, rule.id)).toBeNull()
    const [listed] = await listRules(handle.db, org.id)
    expect(listed!.lastActivityAt).toEqual(history!.events[0]!.createdAt)
    const [delivery] = await handle.db
      .select()
      .from(integrationDeliveries)
      .where(eq(integrationDeliveries.integrationId, integration.id))
    expect(delivery).toMatchObject({ purpose: 'alert', status: 'succeeded' })
  })
})
