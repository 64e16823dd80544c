import { InngestTestEngine } from '@inngest/test'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issues, replaySessions } from '@/db/schema'
import { buildJobDefinitions } from '@/inngest/app'
import { getConfig } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createInngestClient, toInngestFunction } from '@/lib/jobs/inngest'
import type { JobDefinition } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { EVENTS } from '@/lib/outbox/events'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { endingNow, ingestSession, loadRecording } from '../helpers/pipeline'

let database: TestDatabase
let organizationId: string
let key: string
let definitions: JobDefinition[]
const client = createInngestClient({ kind: 'inngest', dev: true })

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Inngest' })).id
  key = (await createKey(database.db, { organizationId, type: 'ingest' })).key
  definitions = buildJobDefinitions(getConfig())
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

const wrapped = (id: string) => {
  const definition = definitions.find((d) => d.id === id)
  if (!definition) throw new Error(`no job ${id}`)
  return toInngestFunction(definition, client)
}

async function sessionId(externalId: string) {
  const [row] = await database.db
    .select({ id: replaySessions.id, status: replaySessions.status })
    .from(replaySessions)
    .where(and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)))
  return row!
}

describe('processing functions on Inngest', () => {
  it('declares the triggers, schedules and retries Inngest needs', () => {
    const process = wrapped('process-session')
    expect(process.opts.retries).toBe(3)
    expect(process.opts.triggers).toEqual([{ event: EVENTS.sessionFinalize }])
    expect(wrapped('finalize-idle-sessions').opts.triggers).toEqual([{ cron: '*/1 * * * *' }])
    expect(wrapped('generate-insights').opts.triggers).toEqual([{ cron: '0 0 * * *' }])
    expect(wrapped('backfill-signal').opts.triggers).toEqual([{ event: EVENTS.signalCreated }])
  })

  it('processes a session through its steps, and a second run of another trigger skips it', async () => {
    await ingestSession(key, 'inngest-1', endingNow(loadRecording('js-error-after-click').events))
    const { id } = await sessionId('inngest-1')
    const event = {
      name: EVENTS.sessionFinalize,
      data: { organizationId, sessionId: id },
      id: 'evt-finalize-1',
      ts: Date.now(),
    }

    const first = new InngestTestEngine({ function: wrapped('process-session') })
    const { result, error, ctx } = await first.execute({ events: [event] })
    expect(error).toBeUndefined()
    expect(result).toMatchObject({
      status: 'processed',
      created: [expect.any(String)],
      linked: [],
      regressed: [],
    })
    for (const step of ['claim', 'analyze', 'record', 'dispatch'])
      expect(ctx.step.run).toHaveBeenCalledWith(step, expect.any(Function))
    expect((await sessionId('inngest-1')).status).toBe('processed')

    const second = new InngestTestEngine({ function: wrapped('process-session') })
    const again = await second.execute({ events: [{ ...event, id: 'evt-finalize-2' }] })
    expect(again.result).toMatchObject({ status: 'skipped' })
    const rows = await database.db.select().from(issues).where(eq(issues.organizationId, organizationId))
    expect(rows).toHaveLength(1)
    expect(rows[0]!.sessionCount).toBe(1)
  })

  it('the scheduled finalizer asks for idle sessions', async () => {
    await ingestSession(key, 'inngest-idle', endingNow(loadRecording('clean').events))
    await database.db
      .update(replaySessions)
      .set({ lastReceivedAt: new Date(Date.now() - 2 * 3600_000) })
      .where(eq(replaySessions.externalId, 'inngest-idle'))
    const t = new InngestTestEngine({ function: wrapped('finalize-idle-sessions') })
    const { result, error } = await t.execute({
      events: [{ name: 'inngest/scheduled.timer', data: {}, id: 'tick-1', ts: Date.now() }],
    })
    expect(error).toBeUndefined()
    expect(result).toEqual({ asked: 1 })
    const [row] = await database.db
      .select({ requested: replaySessions.processingRequestedAt })
      .from(replaySessions)
      .where(eq(replaySessions.externalId, 'inngest-idle'))
    expect(row!.requested).toBeInstanceOf(Date)
  })
})
