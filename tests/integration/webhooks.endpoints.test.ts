import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { webhookEndpoints } from '@/db/schema'
import { runAdminCli } from '@/inngest/cli'
import { ConflictError, ForbiddenError, InvalidInputError, RateLimitedError } from '@/lib/errors'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createMemoryRateLimiter } from '@/lib/ratelimit'
import { createDeliverer } from '@/lib/webhooks/deliver'
import { createEndpoint, listEndpoints, PAID_PLAN_MESSAGE, revokeEndpoint } from '@/lib/webhooks/endpoints'
import { deliveryLog } from '@/lib/webhooks/log'
import { decryptSecret } from '@/lib/webhooks/secrets'
import { sendTestEvent } from '@/lib/webhooks/send-test'
import { verifyWebhookSignature } from '@/lib/webhooks/verify'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
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

beforeAll(async () => {
  database = await createTestDatabase()
  pki = createTestPki()
  receiver = await startReceiver(pki.issue(['hooks.test']))
})
afterAll(async () => {
  await receiver?.close()
  pki?.dispose()
  await database?.close()
})

const paidOrg = async () => (await createOrganization(database.db, { name: 'Paid', plan: 'paid' })).id
const create = (organizationId: string, extra: Partial<Parameters<typeof createEndpoint>[1]> = {}) =>
  createEndpoint(database.db, { organizationId, name: 'Hook', url: 'https://example.com/hook', ...extra })

describe('endpoint rules', () => {
  it('is for paid organizations only', async () => {
    const free = await createOrganization(database.db, { name: 'Free', plan: 'free' })
    await expect(create(free.id)).rejects.toThrow(ForbiddenError)
    await expect(create(free.id)).rejects.toThrow(PAID_PLAN_MESSAGE)
  })

  it('validates name, URL and events', async () => {
    const org = await paidOrg()
    await expect(create(org, { name: 'n'.repeat(65) })).rejects.toThrow(InvalidInputError)
    await expect(create(org, { url: `https://example.com/${'a'.repeat(2048)}` })).rejects.toThrow('2048')
    await expect(create(org, { url: 'http://example.com/' })).rejects.toThrow('https')
    await expect(create(org, { url: 'https://u:p@example.com/' })).rejects.toThrow('credentials')
    // IPv4-compatible IPv6 carries 127.0.0.1: refused when the endpoint is created
    await expect(create(org, { url: 'https://[::7f00:1]/hook' })).rejects.toThrow(InvalidInputError)
    await expect(create(org, { url: 'https://[::7f00:1]/hook' })).rejects.toThrow('ipv4Compatible')
    await expect(create(org, { events: ['issue.deleted'] })).rejects.toThrow('Unknown event')
    await expect(create(org, { events: [] })).rejects.toThrow('at least one')
  })

  it('stores the secret encrypted and shows only its prefix afterwards', async () => {
    const org = await paidOrg()
    const created = await create(org, { events: ['issue.created', 'signal.matched'] })
    expect(created.secret).toMatch(/^whsec_/)
    const [row] = await database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id))
    expect(row!.secretCiphertext).not.toContain(created.secret.slice(6, 20))
    expect(decryptSecret(row!.secretCiphertext)).toBe(created.secret)
    const [listed] = await listEndpoints(database.db, org)
    expect(listed).toMatchObject({ secretPrefix: `${created.secret.slice(0, 12)}…`, events: created.events })
    expect(JSON.stringify(listed)).not.toContain(created.secret)
  })

  it('allows 3 active endpoints; revoking frees a slot', async () => {
    const org = await paidOrg()
    const [a] = [await create(org), await create(org), await create(org)]
    await expect(create(org)).rejects.toThrow(ConflictError)
    await revokeEndpoint(database.db, { id: a!.id })
    await expect(create(org)).resolves.toMatchObject({ name: 'Hook' })
  })

  it('allows 5 creations per hour, revoked ones included, counted from the rows', async () => {
    const org = await paidOrg()
    for (let i = 0; i < 5; i++) {
      const e = await create(org)
      await revokeEndpoint(database.db, { id: e.id })
    }
    const refused = await create(org).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(RateLimitedError)
    expect((refused as RateLimitedError).retryAfterSeconds).toBeGreaterThan(3500)
    // An hour later (rows aged, as after a restart) the window has room again.
    await database.db
      .update(webhookEndpoints)
      .set({ createdAt: sql`now() - interval '61 minutes'` })
      .where(eq(webhookEndpoints.organizationId, org))
    await expect(create(org)).resolves.toBeTruthy()
  })
})

describe('Send test', () => {
  it('sends a synthetic signed event with Service-Webhook-Test: 1, logs it, and is rate-limited', async () => {
    const org = await paidOrg()
    const endpoint = await create(org, { url: `https://hooks.test:${receiver.port}/` })
    const deliver = createDeliverer({
      resolver: loopbackResolver({ 'hooks.test': ['127.0.0.1'] }),
      ca: pki.caCert,
      allowPrivate: true,
    })
    const limiter = createMemoryRateLimiter()
    const input = { organizationId: org, endpointId: endpoint.id, event: 'issue.status_changed' as const }
    const outcome = await sendTestEvent(database.db, deliver, limiter, input)
    expect(outcome).toMatchObject({ ok: true, status: 200 })
    const got = receiver.received.at(-1)!
    expect(got.headers['service-webhook-test']).toBe('1')
    expect(got.headers['service-event']).toBe('issue.status_changed')
    expect(got.headers['service-webhook-id']).toBe(outcome.eventId)
    verifyWebhookSignature(got.body, String(got.headers['service-signature']), endpoint.secret)
    expect(JSON.parse(got.body)).toMatchObject({ event: 'issue.status_changed', data: { orgId: org } })
    const [listed] = await listEndpoints(database.db, org)
    expect(listed).toMatchObject({ lastStatus: 200, lastError: null })
    const log = await deliveryLog(database.db, { organizationId: org, endpointId: endpoint.id })
    expect(log[0]).toMatchObject({
      isTest: true,
      status: 'succeeded',
      log: [{ attempt: 1, httpStatus: 200 }],
    })
    for (let i = 0; i < 4; i++) await sendTestEvent(database.db, deliver, limiter, input)
    await expect(sendTestEvent(database.db, deliver, limiter, input)).rejects.toThrow(RateLimitedError)
  })
})

describe('admin CLI', () => {
  async function cli(...argv: string[]) {
    const out: string[] = []
    const err: string[] = []
    const code = await runAdminCli([...argv, '--json'], {
      stdout: (l) => out.push(l),
      stderr: (l) => err.push(l),
      env: process.env,
      database,
    })
    return { code, json: out[0] ? JSON.parse(out[0]) : undefined, err: err.join('\n') }
  }

  it('creates, lists and revokes with the documented JSON shapes and the same rules', async () => {
    const org = await paidOrg()
    const created = await cli(
      'webhook:create',
      '--org',
      org,
      '--name',
      'CLI',
      '--url',
      'https://example.com/h',
      '--events',
      'issue.created,issue.recurred',
    )
    expect(created.code).toBe(0)
    expect(Object.keys(created.json).sort()).toEqual(['events', 'id', 'name', 'secret', 'url'])
    expect(created.json.events).toEqual(['issue.created', 'issue.recurred'])
    const listed = await cli('webhook:list', '--org', org)
    expect(Object.keys(listed.json.endpoints[0]).sort()).toEqual(
      [
        'events',
        'id',
        'lastDeliveryAt',
        'lastError',
        'lastStatus',
        'name',
        'revokedAt',
        'secretPrefix',
        'url',
      ].sort(),
    )
    const revoked = await cli('webhook:revoke', '--id', created.json.id)
    expect(revoked.json).toMatchObject({ id: created.json.id, revokedAt: expect.any(String) })
    const free = await createOrganization(database.db, { name: 'Free', plan: 'free' })
    const refused = await cli(
      'webhook:create',
      '--org',
      free.id,
      '--name',
      'x',
      '--url',
      'https://example.com/',
    )
    expect(refused.code).not.toBe(0)
    expect(refused.err).toContain('paid plan')
    const embedded = await cli(
      'webhook:create',
      '--org',
      org,
      '--name',
      'Loopback in disguise',
      '--url',
      'https://[::7f00:1]/hook',
    )
    expect(embedded.code).not.toBe(0)
    expect(embedded.err).toContain('URL refused: ::7f00:1 is an ipv4Compatible address')
    const rows = await database.db
      .select({ url: webhookEndpoints.url })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.organizationId, org))
    expect(rows.map((r) => r.url)).toEqual(['https://example.com/h'])
  })
})
