/**
 * Re-analysing the session an issue was filed from (issue 34): a first analysis that ran while
 * the visit was still going saw "the session ended 4 s later" — a block — and the issue kept
 * it, so its evidence said the user could not go on while the replay showed them carrying on.
 * The fuller analysis of the same session now replaces it; another session's does not.
 */
import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '@/db/client'
import { issues, replaySessions } from '@/db/schema'
import { analyzeEvents } from '@/lib/analysis'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'
import { useDatabase } from '@/lib/db'
import { recordFindings } from '@/lib/issues/record-findings'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createTestDatabase, type TestDatabase } from '../helpers/db'

let database: TestDatabase
let db: Db

beforeAll(async () => {
  database = await createTestDatabase()
  db = database.db
  useDatabase(database)
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

const DOC = page([
  el(10, 'button', { id: 'apply' }, [txt(11, 'Apply coupon')]),
  el(12, 'button', { id: 'add' }, [txt(13, 'Add item')]),
  el(14, 'div', { id: 'out' }),
])

/** The user clicks Apply coupon and a TypeError follows; the recording so far ends 4 s later. */
function partial(start: number): SessionBuilder {
  return new SessionBuilder(start)
    .load('https://shop.example.com/product', DOC)
    .wait(1000)
    .click(10)
    .uncaught("TypeError: Cannot read properties of undefined (reading 'code')")
    .wait(4000)
    .mouseMove()
}

/** The same visit with its later batches: the user went on and added an item. */
function whole(start: number): SessionBuilder {
  return partial(start)
    .wait(1000)
    .click(12)
    .mutation({ attributes: [{ id: 14, attributes: { class: 'x' } }] })
}

async function record(organizationId: string, sessionId: string, b: SessionBuilder) {
  const { findings } = await analyzeEvents(b.events)
  const errors = findings.filter((f) => f.kind === 'js_error')
  await db.transaction((tx) =>
    recordFindings(tx, {
      organizationId,
      sessionId,
      sessionStart: b.start,
      release: null,
      findings: errors,
      baseUrl: 'https://replay.example.com',
    }),
  )
}

async function session(organizationId: string, start: number): Promise<string> {
  const [row] = await db
    .insert(replaySessions)
    .values({
      organizationId,
      externalId: `s-${randomUUID()}`,
      startedAt: new Date(start),
      lastActivityAt: new Date(start + 60_000),
      entryUrl: 'https://shop.example.com/product',
      anonymousId: `anon-${randomUUID().slice(0, 8)}`,
    })
    .returning({ id: replaySessions.id })
  return row!.id
}

describe('recordFindings: re-analysis of the source session', () => {
  it('replaces a block the partial analysis saw by what the whole visit shows', async () => {
    const organizationId = (await createOrganization(db, { name: 'Refresh' })).id
    const start = Date.now() - 600_000
    const source = await session(organizationId, start)
    await record(organizationId, source, partial(start))
    const [before] = await db.select().from(issues).where(eq(issues.organizationId, organizationId))
    expect(before).toMatchObject({ priority: 'critical', evidence: { blocking: true, followUp: 'left' } })

    await record(organizationId, source, whole(start))
    const [after] = await db.select().from(issues).where(eq(issues.id, before!.id))
    expect(after).toMatchObject({
      priority: 'high',
      sessionCount: 1,
      evidence: { blocking: false, followUp: 'went_on' },
      updatedAt: before!.updatedAt,
    })
    expect(after!.priorityReason).toContain('not blocking: the user went on (clicked “Add item”')
    expect(after!.evidence).toMatchObject({ followUpSentence: expect.stringContaining('the user went on') })

    // Another session's analysis never rewrites what the issue says.
    const other = await session(organizationId, start + 100_000)
    await record(organizationId, other, partial(start + 100_000))
    await record(organizationId, other, partial(start + 100_000))
    const [later] = await db.select().from(issues).where(eq(issues.id, before!.id))
    expect(later).toMatchObject({ priority: 'high', sessionCount: 2, evidence: { followUp: 'went_on' } })
  })
})
