/**
 * The edges of an erasure a reviewer found (docs/privacy.md#erasure): a short identifier
 * silences only messages that name it as a value, the engine's job runs of erased sessions
 * go, a failed erasure forgets the person, and what a failed query leaves in errors and logs
 * never carries the person.
 */
import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { DrizzleQueryError } from 'drizzle-orm/errors'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { erasures, jobRuns, webhookDeliveries, webhookEndpoints } from '@/db/schema'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { failErasure } from '@/lib/privacy/erase-person'
import { forgetJobRuns, REDACTED_BODY, silenceDeliveries } from '@/lib/privacy/erasure-deliveries'
import { requestErasure } from '@/lib/privacy/erasures'
import { privacySafeError } from '@/lib/privacy/safe-failure'
import { createTestDatabase, type TestDatabase } from '../helpers/db'

let database: TestDatabase
let organizationId: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Edges' })).id
})

afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

describe('erasure edges', () => {
  it('silences a message naming a short id as a value, and leaves one where it is only digits of another', async () => {
    const [endpoint] = await database.db
      .insert(webhookEndpoints)
      .values({
        organizationId,
        name: 'hook',
        url: 'https://hooks.example.com/x',
        events: ['issue.created'],
        secretCiphertext: 'x',
        secretPrefix: 'whsec_x',
      })
      .returning()
    const delivery = (body: object) => ({
      endpointId: endpoint!.id,
      organizationId,
      eventId: randomUUID(),
      eventType: 'issue.created',
      body: JSON.stringify(body),
      status: 'pending' as const,
    })
    const [naming, unrelated] = await database.db
      .insert(webhookDeliveries)
      .values([
        delivery({ data: { userId: '42' } }),
        delivery({ data: { sessionCount: 420, title: 'x42y' } }),
      ])
      .returning()
    const counts = await silenceDeliveries(database.db, organizationId, [JSON.stringify('42')])
    expect(counts).toMatchObject({ deliveriesRedacted: 1, deliveriesCancelled: 1 })
    const rows = new Map(
      (await database.db.select().from(webhookDeliveries)).map((row) => [row.id, row] as const),
    )
    expect(rows.get(naming!.id)).toMatchObject({ status: 'cancelled', body: REDACTED_BODY })
    expect(rows.get(unrelated!.id)).toMatchObject({ status: 'pending', body: unrelated!.body })
  })

  it('deletes the job runs that hold an erased session’s analysis, and no other', async () => {
    const erased = randomUUID()
    const kept = randomUUID()
    const run = (sessionId: string) => ({
      functionId: 'process-session',
      idempotencyKey: randomUUID(),
      eventName: 'session/finalize.requested',
      payload: { organizationId, sessionId },
      maxAttempts: 3,
      steps: { analyse: { findings: ['secret evidence'] } },
    })
    await database.db.insert(jobRuns).values([run(erased), run(kept)])
    expect(await forgetJobRuns(database.db, [erased])).toBe(1)
    const left = (await database.db.select().from(jobRuns)).map((row) => row.payload.sessionId)
    expect(left).toContain(kept)
    expect(left).not.toContain(erased)
  })

  it('forgets the person when an erasure is given up', async () => {
    const actor = { organizationId, actorType: 'system' as const, actorId: 'test' }
    const erasure = await requestErasure(database.db, actor, { kind: 'user_id', value: 'given-up' })
    await failErasure(database.db, { organizationId, erasureId: erasure.id })
    const [row] = await database.db.select().from(erasures).where(eq(erasures.id, erasure.id))
    expect(row).toMatchObject({ status: 'failed', personSealed: null })
  })

  it('keeps a failed query’s parameters out of what is stored, shown and logged', () => {
    const failure = new DrizzleQueryError('select 1 where email = $1', ['ada@example.com'], {
      name: 'PostgresError',
      message: 'deadlock detected',
      code: '40P01',
    } as Error)
    const safe = privacySafeError(failure)
    expect(safe.message).toBe('A database query failed (code 40P01)')
    expect(JSON.stringify({ ...safe, message: safe.message, stack: safe.stack })).not.toContain('ada@')
    expect(privacySafeError(new Error('blob storage unavailable')).message).toBe('blob storage unavailable')
  })
})
