import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { DatabaseHandle } from '@/db/client'
import { integrationDeliveries, integrationDeliveryAttempts, integrations } from '@/db/schema'
import { deliverDueSlack } from '@/lib/alerts/deliver-slack'
import { evaluateEvent } from '@/lib/alerts/evaluate'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { useDatabase } from '@/lib/db'
import { sendSlackMessage } from '@/lib/integrations/slack'
import { issueEventData } from '@/lib/issues/event-data'
import { createOrganization } from '@/lib/orgs/create-organization'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { type SlackReceiver, seedRule, seedSlackIntegration, startSlackReceiver } from '../helpers/alerts'
import { createTestDatabase } from '../helpers/db'
import { seedIssue } from '../helpers/seed'
import { linkIssue, seedSession } from '../helpers/sessions'

let handle: DatabaseHandle
let receiver: SlackReceiver
const delays = [0, 0, 0]

beforeAll(async () => {
  handle = await createTestDatabase()
  useDatabase(handle)
  receiver = await startSlackReceiver()
  setConfigForTests(
    parseConfig({ ...process.env, SLACK_WEBHOOK_HOSTS: receiver.host, BASE_URL: 'https://replays.example' }),
  )
})
afterEach(() => receiver.behave((res) => res.writeHead(200).end('ok')))
afterAll(async () => {
  setConfigForTests(undefined)
  useDatabase(undefined)
  await receiver?.close()
  await handle?.close()
})

/** An organization with one immediate rule to a Slack integration on the local receiver, and one alerted issue. */
async function alertOnce(title = 'TypeError in checkout') {
  const org = await createOrganization(handle.db, { name: 'Acme' })
  const integration = await seedSlackIntegration(handle.db, org.id, `http://${receiver.host}/services/T/B/x`)
  await seedRule(handle.db, {
    organizationId: org.id,
    name: 'New issues <!channel>',
    trigger: 'issue_created',
    integrationId: integration.id,
  })
  const issue = await seedIssue(handle.db, org.id, {
    title,
    description: 'Cannot read properties of undefined (reading "total")\nat pay (checkout.js:10)',
    sessionCount: 3,
  })
  const session = await seedSession(handle.db, org.id)
  await linkIssue(handle.db, session, issue.id, new Date(session.startedAt.getTime() + 4_500))
  const eventId = await handle.db.transaction(async (tx) =>
    enqueueEvent(tx, {
      organizationId: org.id,
      name: EVENTS.issueCreated,
      payload: await issueEventData(tx, issue.id),
    }),
  )
  const result = await evaluateEvent(handle.db, { eventId: eventId!, name: EVENTS.issueCreated })
  expect(result.slack).toHaveLength(1)
  return { org, integration, issue, session, deliveryId: result.slack[0]! }
}

const delivery = async (id: string) =>
  (await handle.db.select().from(integrationDeliveries).where(eq(integrationDeliveries.id, id)))[0]!
const attempts = (id: string) =>
  handle.db.select().from(integrationDeliveryAttempts).where(eq(integrationDeliveryAttempts.deliveryId, id))
const makeDue = (id: string) =>
  handle.db
    .update(integrationDeliveries)
    .set({ nextAttemptAt: new Date(0) })
    .where(eq(integrationDeliveries.id, id))

describe('Slack alert messages', () => {
  it('carry the title escaped, the counts, the evidence and both buttons', async () => {
    const before = receiver.received.length
    const { issue, session, deliveryId } = await alertOnce('<!channel> & <https://evil.example|click> broke')
    expect(await deliverDueSlack(handle.db, { delays, ids: [deliveryId] })).toBe(1)
    const { body } = receiver.received[before] as {
      body: { text: string; blocks: Record<string, unknown>[] }
    }
    const json = JSON.stringify(body)
    // Slack parses the notification text and every mrkdwn text; the header is plain text, never parsed.
    const parsed = [
      body.text,
      ...[...json.matchAll(/"type":"mrkdwn","text":"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!),
    ]
    expect(parsed.length).toBeGreaterThan(4)
    for (const text of parsed) expect(text).not.toMatch(/<!channel>|<https:\/\/evil/)
    expect(body.blocks[0]).toMatchObject({ type: 'header', text: { type: 'plain_text' } })
    expect(json).toContain('&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt; broke')
    expect(json).toContain('*Sessions*\\n3')
    expect(json).toContain('*Occurrences*\\n1')
    expect(json).toContain('Cannot read properties of undefined (reading \\"total\\")')
    expect(json).not.toContain('checkout.js:10')
    const actions = body.blocks.find((b) => b.type === 'actions') as {
      elements: { text: { text: string }; url: string }[]
    }
    expect(actions.elements.map((e) => [e.text.text, e.url])).toEqual([
      ['Open issue', `https://replays.example/issues/${issue.id}`],
      ['Watch replay', `https://replays.example/sessions/${session.id}?t=4500`],
    ])
    expect((await delivery(deliveryId)).status).toBe('succeeded')
  })

  it('send page text verbatim: bare URLs, #channels and @mentions are never auto-linked, our buttons stay', async () => {
    const before = receiver.received.length
    const { deliveryId } = await alertOnce('Sign in again at https://evil.example/login #general @here')
    expect(await deliverDueSlack(handle.db, { delays, ids: [deliveryId] })).toBe(1)
    const { body } = receiver.received[before] as { body: Record<string, unknown> & { blocks: unknown[] } }
    const mrkdwn = JSON.stringify(body).match(/"type":"mrkdwn"[^}]*\}/g) ?? []
    expect(mrkdwn.length).toBeGreaterThan(4)
    for (const text of mrkdwn) expect(text).toContain('"verbatim":true')
    expect(JSON.stringify(body)).toContain('https://evil.example/login #general @here')
    expect(body).toMatchObject({ unfurl_links: false, unfurl_media: false })
    expect(JSON.stringify(body)).toContain('"action_id":"open_issue"')

    // A body stored before messages carried the flag is sent under the same rule.
    const legacy = JSON.stringify({
      text: 'x',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: 'https://evil.example' } },
        { type: 'context', elements: [{ type: 'mrkdwn', text: '#general' }] },
      ],
    })
    expect((await sendSlackMessage(`http://${receiver.host}/services/T/B/x`, legacy)).ok).toBe(true)
    expect(receiver.received.at(-1)?.body).toMatchObject({
      unfurl_links: false,
      blocks: [{ text: { verbatim: true } }, { elements: [{ verbatim: true }] }],
    })
  })

  it('fails at once on 401 with a clear label, and notes it on the integration', async () => {
    receiver.behave((res) => res.writeHead(401).end('invalid_token'))
    const { integration, deliveryId } = await alertOnce()
    await deliverDueSlack(handle.db, { delays, ids: [deliveryId] })
    const row = await delivery(deliveryId)
    expect(row).toMatchObject({ status: 'failed', attempts: 1, lastStatus: 401, lastError: 'bad_status:401' })
    const [after] = await handle.db.select().from(integrations).where(eq(integrations.id, integration.id))
    expect(after).toMatchObject({ lastStatus: 401, lastError: 'bad_status:401' })
  })

  it('retries a 429 no sooner than its Retry-After, then delivers', async () => {
    receiver.behave((res) => res.writeHead(429, { 'retry-after': '120' }).end('rate_limited'))
    const { deliveryId } = await alertOnce()
    await deliverDueSlack(handle.db, { delays, ids: [deliveryId] })
    const row = await delivery(deliveryId)
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 429, lastError: 'rate_limited' })
    // Not due before Retry-After, though the configured delay is 0.
    expect(row.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + 100_000)
    expect(await deliverDueSlack(handle.db, { delays, ids: [deliveryId] })).toBe(0)
    receiver.behave((res) => res.writeHead(200).end('ok'))
    await makeDue(deliveryId)
    expect(await deliverDueSlack(handle.db, { delays, ids: [deliveryId] })).toBe(1)
    expect(await delivery(deliveryId)).toMatchObject({ status: 'succeeded', attempts: 2 })
    expect((await attempts(deliveryId)).map((a) => a.httpStatus).sort()).toEqual([200, 429])
  })

  it('retries a 500 and fails once the delays are spent', async () => {
    receiver.behave((res) => res.writeHead(500).end())
    const { deliveryId } = await alertOnce()
    for (let i = 0; i < 5; i++) await deliverDueSlack(handle.db, { delays, ids: [deliveryId] })
    expect(await delivery(deliveryId)).toMatchObject({
      status: 'failed',
      attempts: 4,
      lastError: 'bad_status:500',
    })
    expect(await attempts(deliveryId)).toHaveLength(4)
  })

  it('bounds each attempt with a deadline and retries a timeout', async () => {
    receiver.behave(() => {})
    const { deliveryId } = await alertOnce()
    await deliverDueSlack(handle.db, { delays, ids: [deliveryId], timeoutMs: 200 })
    expect(await delivery(deliveryId)).toMatchObject({ status: 'pending', attempts: 1, lastError: 'timeout' })
    // Out of the way of the sweeps below.
    await handle.db
      .update(integrationDeliveries)
      .set({ status: 'cancelled' })
      .where(eq(integrationDeliveries.id, deliveryId))
  })

  it('refuses at send time a stored URL off the allowed hosts', async () => {
    const { integration, deliveryId } = await alertOnce()
    setConfigForTests(parseConfig({ ...process.env, SLACK_WEBHOOK_HOSTS: 'hooks.slack.com' }))
    try {
      await deliverDueSlack(handle.db, { delays, ids: [deliveryId] })
    } finally {
      setConfigForTests(
        parseConfig({
          ...process.env,
          SLACK_WEBHOOK_HOSTS: receiver.host,
          BASE_URL: 'https://replays.example',
        }),
      )
    }
    expect(await delivery(deliveryId)).toMatchObject({ status: 'failed', lastError: 'url_unsafe' })
    expect(integration.id).toBeTruthy()
  })

  it('delivers each message once with two sweeps running at once', async () => {
    const ids: string[] = []
    for (let i = 0; i < 20; i++) {
      const { deliveryId } = await alertOnce(`Issue ${i}`)
      ids.push(deliveryId)
    }
    // The evaluations' own first attempts were not made: both sweeps race for the 20.
    const before = receiver.received.length
    const [a, b] = await Promise.all([
      deliverDueSlack(handle.db, { delays }),
      deliverDueSlack(handle.db, { delays }),
    ])
    expect(a + b).toBe(20)
    expect(receiver.received.length - before).toBe(20)
    for (const id of ids) expect(await attempts(id)).toHaveLength(1)
  })

  it('leaves rows it could not start soon after their claim for a later claim (no send after the lease)', async () => {
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await alertOnce(`Slow ${i}`)).deliveryId)
    // A slow Slack and one attempt at a time: the 2nd and 3rd would start after their bound.
    receiver.behave((res) => setTimeout(() => res.writeHead(200).end('ok'), 300))
    const before = receiver.received.length
    const made = await deliverDueSlack(handle.db, { delays, ids, concurrency: 1, startWithinMs: 100 })
    expect(made).toBe(1)
    expect(receiver.received.length - before).toBe(1)
    const left = await Promise.all(ids.map(delivery))
    expect(left.filter((d) => d.status === 'pending' && d.attempts === 0)).toHaveLength(2)
    // Once the lease is over (made due here), a later sweep sends them, each once.
    receiver.behave((res) => res.writeHead(200).end('ok'))
    for (const id of ids) await makeDue(id)
    expect(await deliverDueSlack(handle.db, { delays, ids })).toBe(2)
    for (const id of ids) expect(await attempts(id)).toHaveLength(1)
  })
})
