/**
 * What an operator sees in the logs: structured JSON lines, one request id from a route
 * through the background functions it starts to the webhook deliveries they make, and never
 * a credential or secret. Everything runs through the real route handlers, the real jobs
 * engine and a real HTTPS receiver; the logger's own serialisation (redaction, context) is
 * what is captured.
 */
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jobRuns, outbox, webhookDeliveries } from '@/db/schema'
import { getJobsEngine } from '@/inngest/app'
import { getConfig } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { issueEventData } from '@/lib/issues/event-data'
import type { JobsEngine } from '@/lib/jobs/types'
import { withLogContext } from '@/lib/log'
import { createOrganization } from '@/lib/orgs/create-organization'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { getBlobStore, setBlobStoreForTests } from '@/lib/storage'
import { createDeliverer } from '@/lib/webhooks/deliver'
import { createEndpoint } from '@/lib/webhooks/endpoints'
import { fanOutEvent } from '@/lib/webhooks/fan-out'
import { getDeliverer, useDeliverer } from '@/lib/webhooks/runtime'
import { deliverDue } from '@/lib/webhooks/sweep'
import { recorderBatches } from '../helpers/batches'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { sendBatch } from '../helpers/ingest'
import { type CapturedLogs, captureLogs, type LogRecord } from '../helpers/logs'
import { connectClient, type McpTestServer, startMcpServer } from '../helpers/mcp'
import { endingNow, loadRecording } from '../helpers/pipeline'
import { seedIssue, seedOAuthToken } from '../helpers/seed'
import { waitFor } from '../helpers/wait'
import {
  createTestPki,
  loopbackResolver,
  startReceiver,
  type TestPki,
  type TestReceiver,
} from '../helpers/webhooks'

let database: TestDatabase
let pki: TestPki
let receiver: TestReceiver
let mcp: McpTestServer
let engine: JobsEngine
let logs: CapturedLogs
let organizationId: string
let ingestKey: string
let apiKey: string
let webhookSecret: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  pki = createTestPki()
  receiver = await startReceiver(pki.issue(['hooks.test']))
  useDeliverer(
    createDeliverer({
      resolver: loopbackResolver({ 'hooks.test': ['127.0.0.1'] }),
      ca: pki.caCert,
      allowPrivate: true,
    }),
  )
  mcp = await startMcpServer()
  organizationId = (await createOrganization(database.db, { name: 'Logs Inc', plan: 'paid' })).id
  ingestKey = (await createKey(database.db, { organizationId, type: 'ingest' })).key
  apiKey = (await createKey(database.db, { organizationId, type: 'api', write: true })).key
  webhookSecret = (
    await createEndpoint(database.db, {
      organizationId,
      name: 'receiver',
      url: `https://hooks.test:${receiver.port}/hook?token=receiver-url-token`,
      events: ['issue.created'],
    })
  ).secret
  logs = captureLogs('trace')
  engine = getJobsEngine()
  await engine.start()
})
afterAll(async () => {
  logs?.restore()
  await engine?.stop()
  useDeliverer(undefined)
  setBlobStoreForTests(undefined)
  useDatabase(undefined)
  await mcp?.close()
  await receiver?.close()
  pki?.dispose()
  await database?.close()
})

/** One batch carrying a whole real recording that ends in a JavaScript error. */
const finalBatch = (sessionId: string) =>
  recorderBatches({ sessionId, events: endingNow(loadRecording('same-error-3-sessions-1').events) })[0]

const linesOf = (requestId: string) => logs.records().filter((r) => r.requestId === requestId)

function only(records: LogRecord[], msg: string): LogRecord {
  const found = records.filter((r) => r.msg === msg)
  expect(found, `exactly one "${msg}" line`).toHaveLength(1)
  return found[0]!
}

describe('request ids in the logs', () => {
  it('follow an ingest batch from its route through processing to the webhook it delivers', async () => {
    const response = await sendBatch(finalBatch('traced-session'), { key: ingestKey })
    expect(response.status).toBe(200)
    const requestId = response.headers.get('x-request-id')!
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/)

    const received = await waitFor('the issue.created webhook', async () =>
      receiver.received.find((r) => r.headers['service-event'] === 'issue.created'),
    )
    const delivered = await waitFor('the delivery to be logged', async () =>
      linesOf(requestId).find((r) => r.msg === 'webhook delivered'),
    )

    const lines = linesOf(requestId)
    const access = only(lines, 'request')
    expect(access).toMatchObject({
      surface: 'ingest',
      method: 'POST',
      path: '/api/sdk/replay',
      status: 200,
      organizationId,
      service: 'session-replay-issues',
    })
    expect(access.durationMs).toEqual(expect.any(Number))

    const processed = only(lines, 'session processed')
    expect(processed).toMatchObject({ functionId: 'process-session', organizationId })
    expect(processed.issuesCreated).toBeGreaterThanOrEqual(1)
    expect(processed.runId).toEqual(expect.any(String))

    expect(delivered).toMatchObject({
      functionId: 'webhook-fan-out-issue-created',
      organizationId,
      eventType: 'issue.created',
      httpStatus: 200,
      attempt: 1,
      result: 'succeeded',
    })
    expect(delivered.eventId).toBe(received.headers['service-webhook-id'])

    // The id is stored where the work waits, so a restart or a retry keeps it.
    const [run] = await database.db
      .select({ requestId: jobRuns.requestId })
      .from(jobRuns)
      .where(eq(jobRuns.id, processed.runId!))
    expect(run?.requestId).toBe(requestId)
    const [issueEvent] = await database.db
      .select({ requestId: outbox.requestId })
      .from(outbox)
      .where(and(eq(outbox.organizationId, organizationId), eq(outbox.name, EVENTS.issueCreated)))
    expect(issueEvent?.requestId).toBe(requestId)
    const [delivery] = await database.db
      .select({ requestId: webhookDeliveries.requestId })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, delivered.deliveryId!))
    expect(delivery?.requestId).toBe(requestId)

    // It never reaches the receiver: webhook bodies are exactly the spec's envelope.
    expect(received.body).not.toContain(requestId)
    expect(Object.keys(JSON.parse(received.body).data)).not.toContain('__requestId')
  })

  it('stay with a delivery that the sweep retries later, outside the request', async () => {
    const issue = await seedIssue(database.db, organizationId, { description: 'Retried' })
    const requestId = 'req-status-change-0001'
    const eventId = await withLogContext({ requestId }, () =>
      database.db.transaction(async (tx) =>
        enqueueEvent(tx, {
          organizationId,
          name: EVENTS.issueCreated,
          payload: await issueEventData(tx, issue.id),
        }),
      ),
    )
    await withLogContext({ requestId }, () =>
      fanOutEvent(database.db, { eventId: eventId!, name: EVENTS.issueCreated }),
    )
    const start = receiver.received.length
    receiver.behave((res, index) => res.writeHead(index === start ? 500 : 200).end())
    // As the sweep function calls it: no request of its own.
    await deliverDue(database.db, getDeliverer(), { delays: [0] })
    await deliverDue(database.db, getDeliverer(), { delays: [0] })
    receiver.behave((res) => res.writeHead(200).end())

    const lines = linesOf(requestId)
    expect(lines.map((r) => [r.msg, r.attempt, r.httpStatus])).toEqual([
      ['webhook attempt failed', 1, 500],
      ['webhook delivered', 2, 200],
    ])
    expect(lines[0]!.level).toBe(40)
    expect(new Set(lines.map((r) => r.deliveryId)).size).toBe(1)
  })

  it('are on every surface’s access line and on the error line of an unexpected failure', async () => {
    const listed = await api.listIssues(apiKey)
    expect(listed.status).toBe(200)
    expect(only(linesOf(listed.headers.get('x-request-id')!), 'request')).toMatchObject({
      surface: 'data-api',
      path: '/api/v1/issues',
      status: 200,
      organizationId,
    })

    const refused = await api.listIssues('svc_api_not_a_key_at_all')
    expect(refused.status).toBe(401)
    const refusedLine = only(linesOf(refused.headers.get('x-request-id')!), 'request')
    expect(refusedLine).toMatchObject({ surface: 'data-api', status: 401 })
    expect(refusedLine.organizationId).toBeUndefined()

    const { token } = await seedOAuthToken(database.db, organizationId)
    const client = await connectClient(mcp.url, token)
    const result = await client.callTool({ name: 'list_issues', arguments: {} })
    expect(result.isError).toBeFalsy()
    expect(JSON.stringify(result.content)).toContain('newest first')
    await client.close()
    const mcpLines = logs.records().filter((r) => r.surface === 'mcp' && r.msg === 'request')
    expect(mcpLines.length).toBeGreaterThanOrEqual(2)
    for (const line of mcpLines) expect(line).toMatchObject({ path: '/api/mcp', organizationId })

    // A blob store that fails: the client gets 500 with the request id, the log has the cause.
    const blobs = getBlobStore()
    setBlobStoreForTests({
      ...blobs,
      put: async () => {
        throw new Error('disk on fire')
      },
    })
    const failed = await sendBatch(finalBatch('failing-session'), { key: ingestKey })
    setBlobStoreForTests(undefined)
    expect(failed.status).toBe(500)
    const body = (await failed.json()) as { error: string; requestId: string }
    expect(body.requestId).toBe(failed.headers.get('x-request-id'))
    const failure = linesOf(body.requestId)
    expect(only(failure, 'ingest request failed')).toMatchObject({
      level: 50,
      organizationId,
      err: { message: 'disk on fire' },
    })
    expect(only(failure, 'request')).toMatchObject({ status: 500 })
  })
})

describe('secrets in the logs', () => {
  it('no line carries a key, token, secret or a credential from a query', async () => {
    // The beacon path puts the key in the query; a wrong key is a secret too (a typo of a real one).
    expect((await sendBatch(finalBatch('beacon-session'), { key: ingestKey, via: 'query' })).status).toBe(200)
    expect((await sendBatch(finalBatch('typo-session'), { key: `${ingestKey}x` })).status).toBe(401)
    expect((await api.listIssues(`${apiKey}x`)).status).toBe(401)

    const everything = logs.lines.join('')
    // What was captured covers every path above, failures included.
    const messages = new Set(logs.records().map((r) => r.msg))
    for (const msg of ['request', 'session processed', 'webhook delivered', 'ingest request failed'])
      expect(messages).toContain(msg)
    const secrets = {
      ingestKey,
      apiKey,
      webhookSecret,
      webhookSecretBody: webhookSecret.replace(/^whsec_/, ''),
      authSecret: getConfig().authSecret,
      receiverUrlToken: 'receiver-url-token',
    }
    for (const [name, secret] of Object.entries(secrets))
      expect(everything.includes(secret), `${name} appears in the logs`).toBe(false)
    expect(everything).not.toMatch(/svc_(pk|api|mcp|oat|ort|oac|cs|inv)_[A-Za-z0-9_-]{16,}/)
    expect(everything).not.toMatch(/whsec_[A-Za-z0-9+/=]{16,}/)
    // Every line is one JSON object.
    for (const line of logs.lines) expect(() => JSON.parse(line)).not.toThrow()
  })
})
