import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { and, count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueSessions, issues, organizations, replayBatches, replaySessions } from '@/db/schema'
import { runAdminCli } from '@/inngest/cli'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { sweepRetention } from '@/lib/retention/sweep'
import { createBlobStore, setBlobStoreForTests } from '@/lib/storage'
import { sessionBlobFolder } from '@/lib/storage/session-blob-keys'
import type { BlobStore } from '@/lib/storage/types'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { ingestSession, loadRecording } from '../helpers/pipeline'

let database: TestDatabase
let blobs: BlobStore
const orgs: Record<'a' | 'b', { id: string; key: string }> = {} as never
const DAY = 86_400_000

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  blobs = createBlobStore({ kind: 'local', root: mkdtempSync(path.join(tmpdir(), 'retention-')) })
  setBlobStoreForTests(blobs)
  for (const name of ['a', 'b'] as const) {
    const { id } = await createOrganization(database.db, { name: `Org ${name}` })
    orgs[name] = { id, key: (await createKey(database.db, { organizationId: id, type: 'ingest' })).key }
  }
})

afterAll(async () => {
  setBlobStoreForTests(undefined)
  useDatabase(undefined)
  await database.close()
})

const events = loadRecording('clean').events

/** Ingests a session through the real route, then dates its start `ageDays` back. */
async function recordSession(org: 'a' | 'b', externalId: string, ageDays: number) {
  await ingestSession(orgs[org].key, externalId, events, { perBatch: 30 })
  const [row] = await database.db
    .update(replaySessions)
    .set({ startedAt: new Date(Date.now() - ageDays * DAY) })
    .where(and(eq(replaySessions.organizationId, orgs[org].id), eq(replaySessions.externalId, externalId)))
    .returning({ id: replaySessions.id })
  return row!.id
}

async function blobCount(org: 'a' | 'b', externalId: string) {
  return (await blobs.list(sessionBlobFolder(orgs[org].id, externalId))).length
}

async function sessionExists(id: string) {
  const [row] = await database.db.select({ n: count() }).from(replaySessions).where(eq(replaySessions.id, id))
  return row!.n === 1
}

describe('retention', () => {
  it('deletes sessions past their organization’s retention with their blobs and batches, and nothing else', async () => {
    const oldA = await recordSession('a', 'old-a', 31)
    const recentA = await recordSession('a', 'recent-a', 29)
    const oldB = await recordSession('b', 'old-b', 31)
    const batchesOfOld = await blobCount('a', 'old-a')
    expect(batchesOfOld).toBeGreaterThan(1)
    // A blob whose row insert failed after the write: no row points to it, the folder holds it.
    await blobs.put(`${sessionBlobFolder(orgs.a.id, 'old-a')}9999999999-orphan.json`, '[]')
    // An issue seen in the old session keeps existing (and its count): it describes the past.
    const [issue] = await database.db
      .insert(issues)
      .values({
        organizationId: orgs.a.id,
        fingerprint: 'retention-test',
        kind: 'js_error',
        sourceType: 'session_analysis',
        title: 'TypeError',
        priority: 'high',
        sessionCount: 1,
      })
      .returning({ id: issues.id })
    await database.db.insert(issueSessions).values({
      issueId: issue!.id,
      sessionId: oldA,
      organizationId: orgs.a.id,
      firstOccurrenceAt: new Date(),
    })
    // Organization b keeps 90 days: its 31-day-old session stays.
    expect(
      (await runAdminCli(['org:retention', '--org', orgs.b.id, '--days', '90'], cliIo())).valueOf(),
    ).toBe(0)

    const result = await sweepRetention(database.db, blobs)

    expect(result).toEqual({ organizations: 1, sessions: 1, blobs: batchesOfOld + 1, more: false })
    expect(await sessionExists(oldA)).toBe(false)
    expect(await blobCount('a', 'old-a')).toBe(0)
    const [batches] = await database.db
      .select({ n: count() })
      .from(replayBatches)
      .where(eq(replayBatches.sessionId, oldA))
    expect(batches!.n).toBe(0)
    expect(await sessionExists(recentA)).toBe(true)
    expect(await blobCount('a', 'recent-a')).toBeGreaterThan(0)
    expect(await sessionExists(oldB)).toBe(true)
    expect(await blobCount('b', 'old-b')).toBeGreaterThan(0)
    const [kept] = await database.db.select().from(issues).where(eq(issues.id, issue!.id))
    expect(kept!.sessionCount).toBe(1)

    // A second run finds nothing more to do.
    expect(await sweepRetention(database.db, blobs)).toEqual({
      organizations: 0,
      sessions: 0,
      blobs: 0,
      more: false,
    })
  })

  it('stops at its budget on a backlog and goes on in the next run', async () => {
    const ids = [] as string[]
    for (const n of [1, 2, 3]) ids.push(await recordSession('a', `backlog-${n}`, 40))
    const first = await sweepRetention(database.db, blobs, { chunk: 1, maxSessions: 2 })
    expect(first).toMatchObject({ sessions: 2, more: true })
    const second = await sweepRetention(database.db, blobs, { chunk: 1, maxSessions: 2 })
    expect(second).toMatchObject({ sessions: 1, more: false })
    for (const id of ids) expect(await sessionExists(id)).toBe(false)
  })

  it('leaves a session that is being analysed for the next run', async () => {
    const id = await recordSession('a', 'busy', 60)
    await database.db.update(replaySessions).set({ status: 'processing' }).where(eq(replaySessions.id, id))
    expect(await sweepRetention(database.db, blobs)).toMatchObject({ sessions: 0 })
    expect(await sessionExists(id)).toBe(true)
    await database.db.update(replaySessions).set({ status: 'processed' }).where(eq(replaySessions.id, id))
    expect(await sweepRetention(database.db, blobs)).toMatchObject({ sessions: 1 })
  })

  it('deletes one session from the admin CLI, only inside the given organization', async () => {
    const id = await recordSession('a', 'to-delete', 1)
    const wrongOrg = await cli('session:delete', '--org', orgs.b.id, '--session', id)
    expect(wrongOrg).toMatchObject({ code: 1, stderr: `No session ${id} in organization ${orgs.b.id}` })
    expect(await cli('session:delete', '--org', orgs.a.id, '--session', 'not-a-uuid')).toMatchObject({
      code: 1,
    })
    expect(await sessionExists(id)).toBe(true)
    const done = await cli('session:delete', '--org', orgs.a.id, '--session', id, '--json')
    expect(done.code).toBe(0)
    expect(JSON.parse(done.stdout)).toMatchObject({ id, sessions: 1 })
    expect(await sessionExists(id)).toBe(false)
    expect(await blobCount('a', 'to-delete')).toBe(0)
  })

  it('refuses a retention that is not a whole number of days from 1 to 3650, changing nothing', async () => {
    const refusals: [string, string][] = [
      ['0', 'Retention must be at least 1 day'],
      ['-3', 'Retention must be at least 1 day'],
      ['2.5', 'Retention must be a whole number of days'],
      ['soon', 'Retention must be a whole number of days'],
      ['4000', 'Retention can be at most 3650 days'],
    ]
    for (const [days, message] of refusals) {
      const refused = await cli('org:retention', '--org', orgs.a.id, `--days=${days}`)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(message)
    }
    const [unchanged] = await database.db
      .select({ days: organizations.retentionDays })
      .from(organizations)
      .where(eq(organizations.id, orgs.a.id))
    expect(unchanged!.days).toBe(30)
    const ok = await cli('org:retention', '--org', orgs.a.id, '--days', '7', '--json')
    expect(JSON.parse(ok.stdout)).toEqual({ id: orgs.a.id, retentionDays: 7 })
  })
})

function cliIo(out: string[] = [], err: string[] = []) {
  return { stdout: (l: string) => out.push(l), stderr: (l: string) => err.push(l), env: {}, database }
}

async function cli(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runAdminCli(argv, cliIo(out, err))
  return { code, stdout: out.join('\n'), stderr: err.join('\n') }
}
