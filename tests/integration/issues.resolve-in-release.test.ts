/**
 * Resolve in a release (issue 36, docs/releases.md#resolve-in-a-release): a resolution may name
 * the release of the fix, or the next release; a later occurrence reopens the issue only from a
 * session of that release or a later one, and older releases are counted without reopening it.
 * Sessions are recorded the way processing records them: the release is seen, then the findings.
 */
import { randomUUID } from 'node:crypto'
import { and, asc, eq } from 'drizzle-orm'
import { encode } from 'next-auth/jwt'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { changeStatusAction } from '@/app/(dashboard)/issues/[issueId]/actions'
import {
  issueActivities,
  issueSessions,
  issues,
  memberships,
  outbox,
  replaySessions,
  users,
} from '@/db/schema'
import { candidatesOf } from '@/lib/alerts/candidates'
import { singleHeading } from '@/lib/alerts/payloads'
import type { Finding } from '@/lib/analysis/types'
import { INVALID_STATUS } from '@/lib/api/params'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { MAX_RELEASE_LENGTH } from '@/lib/ingest/schema'
import { recordSeenRelease } from '@/lib/issues/fix-release'
import { issueHistory } from '@/lib/issues/issue-history'
import { RESOLVE_IN_NEXT_RELEASE, RESOLVE_IN_RELEASE } from '@/lib/issues/labels'
import { recordFindings } from '@/lib/issues/record-findings'
import { releaseChoices } from '@/lib/issues/release-choices'
import {
  INVALID_IN_NEXT_RELEASE,
  INVALID_IN_RELEASE,
  ONE_RESOLUTION,
  RESOLVED_ONLY,
  UNSTORABLE_IN_RELEASE,
  unknownReleaseMessage,
} from '@/lib/issues/resolution'
import { updateIssuesStatus } from '@/lib/issues/update-issues-status'
import { createOrganization } from '@/lib/orgs/create-organization'
import { EVENTS, type EventPayload } from '@/lib/outbox/events'
import { upsertRelease } from '@/lib/releases/record-release'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedIn } from '../helpers/signed-in'

vi.mock('@/lib/http/session', () => import('../helpers/signed-in'))
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, revalidateTag: () => undefined }))
vi.mock('next/headers', () => ({
  headers: async () => new Headers({ 'x-forwarded-for': '203.0.113.7' }),
  cookies: async () => ({ get: () => undefined, getAll: () => [] }),
}))

const BASE = 'https://replays.example'
let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

type Body = Record<string, unknown>
const body = async (response: Response) => (await response.json()) as Body

async function organization(name: string) {
  const org = await createOrganization(database.db, { name })
  const { key, id } = await createKey(database.db, { organizationId: org.id, type: 'api', write: true })
  return { id: org.id, key, keyId: id }
}

function finding(fingerprint: string, at: number): Finding {
  return {
    kind: 'js_error',
    fingerprint,
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
    evidence: { message: 'TypeError: total is undefined' },
    stepsToReplicate: '1. Open /checkout',
  }
}

/**
 * A counted session of `release` (null: none) that shows the bug `fingerprint` (or nothing), as
 * process-session.ts records it. Its occurrence is stamped a minute ahead, which recording clamps
 * to the transaction's now(): strictly after any resolution made before, whatever the clocks say.
 */
async function session(organizationId: string, release: string | null, fingerprint: string | null) {
  const start = Date.now() - 60_000
  const [row] = await database.db
    .insert(replaySessions)
    .values({
      organizationId,
      externalId: `s-${randomUUID()}`,
      startedAt: new Date(start),
      lastActivityAt: new Date(start + 60_000),
      entryUrl: 'https://shop.example/checkout',
      anonymousId: `anon-${randomUUID().slice(0, 8)}`,
      release,
    })
    .returning({ id: replaySessions.id })
  const sessionId = row!.id
  const recorded = await database.db.transaction(async (tx) => {
    if (release) await recordSeenRelease(tx, { organizationId, version: release })
    return recordFindings(tx, {
      organizationId,
      sessionId,
      sessionStart: start,
      release,
      findings: fingerprint ? [finding(fingerprint, Date.now() + 60_000)] : [],
      baseUrl: BASE,
    })
  })
  return { sessionId, recorded }
}

/** An issue first seen in a session of `release`, and its fingerprint. */
async function issueSeenIn(organizationId: string, release: string | null) {
  const fingerprint = `fp-${randomUUID()}`
  const { recorded } = await session(organizationId, release, fingerprint)
  return { id: recorded.created[0]!, fingerprint }
}

const row = async (issueId: string) =>
  (await database.db.select().from(issues).where(eq(issues.id, issueId)))[0]!

const activities = (issueId: string) =>
  database.db
    .select()
    .from(issueActivities)
    .where(eq(issueActivities.issueId, issueId))
    .orderBy(asc(issueActivities.createdAt))

async function events(issueId: string, name: string) {
  const rows = await database.db.select().from(outbox).where(eq(outbox.name, name))
  return rows.filter((event) => event.payload.issueId === issueId)
}

const oldReleaseLinks = async (issueId: string) =>
  (
    await database.db
      .select({ oldRelease: issueSessions.oldRelease })
      .from(issueSessions)
      .where(and(eq(issueSessions.issueId, issueId), eq(issueSessions.oldRelease, true)))
  ).length

describe('resolved in a release (semver)', () => {
  it('counts sessions of older releases without reopening, and regresses from a later release naming both', async () => {
    const org = await organization('Semver')
    const { id, fingerprint } = await issueSeenIn(org.id, '3.1.0')
    await upsertRelease(database.db, { organizationId: org.id, version: '3.2.0' })

    const patched = await api.patchIssue(org.key, id, { status: 'resolved', inRelease: '3.2.0' })
    expect(patched.status).toBe(200)
    const issue = (await body(patched)).issue as Body
    expect(issue).toMatchObject({
      status: 'resolved',
      resolvedInRelease: '3.2.0',
      resolvedInNextRelease: false,
    })
    expect(new Date(String(issue.resolvedAt)).toISOString()).toBe(issue.resolvedAt)
    const changed = (await activities(id)).filter((a) => a.kind === 'status_changed')
    expect(changed.map((a) => [a.toStatus, a.metadata, a.actorId])).toEqual([
      ['resolved', { release: '3.2.0' }, org.keyId],
    ])
    expect(await events(id, EVENTS.issueStatusChanged)).toHaveLength(1)

    // 3.1.0 still runs in open tabs, and a session of no release cannot be placed: neither reopens it.
    for (const release of ['3.1.0', '3.1.0', null]) {
      const { recorded } = await session(org.id, release, fingerprint)
      expect(recorded).toMatchObject({ linked: [id], regressed: [], oldRelease: [id] })
    }
    expect(await row(id)).toMatchObject({ status: 'resolved', resolvedInRelease: '3.2.0', sessionCount: 4 })
    expect(await oldReleaseLinks(id)).toBe(3)
    expect(await events(id, EVENTS.issueRecurred)).toHaveLength(0)
    expect(await events(id, EVENTS.issueRegressed)).toHaveLength(0)
    const detail = (await body(await api.getIssue(org.key, id))).issue as Body
    expect(detail.oldReleaseOccurrences).toEqual([
      { release: null, sessions: 1, lastSeenAt: expect.any(String) },
      { release: '3.1.0', sessions: 2, lastSeenAt: expect.any(String) },
    ])
    expect(detail.regression).toBeNull()

    // The fix's own release shows it again: the fix did not hold.
    const { sessionId, recorded } = await session(org.id, '3.3.0', fingerprint)
    expect(recorded.regressed).toEqual([id])
    expect(await row(id)).toMatchObject({
      status: 'unresolved',
      resolvedInRelease: null,
      resolvedInNextRelease: false,
      resolvedAt: null,
    })
    const regressed = (await activities(id)).filter((a) => a.kind === 'regressed')
    expect(regressed).toHaveLength(1)
    expect(regressed[0]!.metadata).toMatchObject({ sessionId, release: '3.3.0', resolvedInRelease: '3.2.0' })
    const [recurred] = await events(id, EVENTS.issueRecurred)
    expect(Object.keys(recurred!.payload)).not.toContain('resolvedInRelease')
    expect(recurred!.payload).toMatchObject({ sessionId, status: 'unresolved' })
    const [regression] = await events(id, EVENTS.issueRegressed)
    expect(regression!.payload).toMatchObject({
      issueId: id,
      sessionId,
      release: '3.3.0',
      resolvedInRelease: '3.2.0',
      replayUrl: expect.stringContaining(`${BASE}/sessions/${sessionId}?t=`),
    })
    expect(regression!.dedupeKey).toBe(`issue.regressed:${id}:${sessionId}`)
    const after = (await body(await api.getIssue(org.key, id))).issue as Body
    expect(after.regression).toEqual({
      release: '3.3.0',
      resolvedInRelease: '3.2.0',
      sessionId,
      at: expect.any(String),
    })
    // What older releases showed after the fix stays on record.
    expect(after.oldReleaseOccurrences).toHaveLength(2)

    // The regression alert (it listens to issue/recurred) names both releases.
    const [candidate] = await candidatesOf(database.db, {
      eventId: recurred!.eventId,
      name: EVENTS.issueRecurred,
      organizationId: org.id,
      payload: recurred!.payload as EventPayload<typeof EVENTS.issueRecurred>,
    })
    expect(candidate!.regression).toEqual({ release: '3.3.0', resolvedInRelease: '3.2.0' })
    expect(singleHeading('issue_regressed', candidate!)).toBe('Issue regressed in 3.3.0 (fixed in 3.2.0)')
  })

  it('regresses from the release of the fix itself', async () => {
    const org = await organization('Same release')
    const { id, fingerprint } = await issueSeenIn(org.id, '2.0.0')
    await upsertRelease(database.db, { organizationId: org.id, version: '2.1.0' })
    expect((await api.patchIssue(org.key, id, { status: 'resolved', inRelease: '2.1.0' })).status).toBe(200)
    const { recorded } = await session(org.id, '2.1.0', fingerprint)
    expect(recorded.regressed).toEqual([id])
  })
})

describe('resolved in the next release', () => {
  it('waits for a release seen after the resolution, then judges by it', async () => {
    const org = await organization('Next')
    const { id, fingerprint } = await issueSeenIn(org.id, '1.0.0')
    const patched = await api.patchIssue(org.key, id, { status: 'resolved', inNextRelease: true })
    expect(patched.status).toBe(200)
    expect((await body(patched)).issue).toMatchObject({
      status: 'resolved',
      resolvedInRelease: null,
      resolvedInNextRelease: true,
    })
    const [changed] = (await activities(id)).filter((a) => a.kind === 'status_changed')
    expect(changed!.metadata).toEqual({ nextRelease: true })

    // Before any new release, every occurrence is from a release older than the fix.
    expect((await session(org.id, '1.0.0', fingerprint)).recorded.oldRelease).toEqual([id])
    expect((await row(id)).status).toBe('resolved')

    // 1.1.0 ships the fix: it becomes the release of the fix.
    await session(org.id, '1.1.0', null)
    expect(await row(id)).toMatchObject({
      status: 'resolved',
      resolvedInRelease: '1.1.0',
      resolvedInNextRelease: true,
    })
    const fixRelease = (await activities(id)).filter((a) => a.kind === 'fix_release')
    expect(fixRelease.map((a) => [a.actorType, a.metadata])).toEqual([['system', { release: '1.1.0' }]])
    expect((await session(org.id, '1.0.0', fingerprint)).recorded.oldRelease).toEqual([id])
    expect((await body(await api.getIssue(org.key, id))).issue).toMatchObject({
      resolvedInRelease: '1.1.0',
      oldReleaseOccurrences: [{ release: '1.0.0', sessions: 2, lastSeenAt: expect.any(String) }],
    })

    const { sessionId, recorded } = await session(org.id, '1.2.0', fingerprint)
    expect(recorded.regressed).toEqual([id])
    const [regression] = await events(id, EVENTS.issueRegressed)
    expect(regression!.payload).toMatchObject({ sessionId, release: '1.2.0', resolvedInRelease: '1.1.0' })
    expect(await events(id, EVENTS.issueRecurred)).toHaveLength(1)
  })
})

describe('releases not ordered by semver', () => {
  it('orders by the deploy time CI stated, else by first seen, never by name', async () => {
    const org = await organization('Builds')
    const { id, fingerprint } = await issueSeenIn(org.id, 'zeta')
    // CI deployed "zeta" before "alpha": alpha is the later release, though its name sorts first.
    await upsertRelease(database.db, {
      organizationId: org.id,
      version: 'zeta',
      deployedAt: new Date('2026-01-01'),
    })
    await upsertRelease(database.db, {
      organizationId: org.id,
      version: 'alpha',
      deployedAt: new Date('2026-02-01'),
    })
    expect((await api.patchIssue(org.key, id, { status: 'resolved', inRelease: 'alpha' })).status).toBe(200)
    expect((await session(org.id, 'zeta', fingerprint)).recorded.oldRelease).toEqual([id])
    expect((await row(id)).status).toBe('resolved')
    // First seen now, after both deploy times: later than the fix.
    expect((await session(org.id, 'beta', fingerprint)).recorded.regressed).toEqual([id])
  })
})

describe('no release named: as before releases', () => {
  it('reopens on any later occurrence, whatever its release, and a repeated resolve is a no-op', async () => {
    const org = await organization('Plain')
    await upsertRelease(database.db, { organizationId: org.id, version: '9.0.0' })
    const { id, fingerprint } = await issueSeenIn(org.id, '8.0.0')
    const patched = await api.patchIssue(org.key, id, { status: 'resolved' })
    const issue = (await body(patched)).issue as Body
    expect(issue).toMatchObject({ status: 'resolved', resolvedInRelease: null, resolvedInNextRelease: false })
    const [changed] = (await activities(id)).filter((a) => a.kind === 'status_changed')
    expect(changed!.metadata).toBeNull()

    const again = (await body(await api.patchIssue(org.key, id, { status: 'resolved' }))).issue as Body
    expect(again).toEqual(issue)
    expect(await activities(id)).toHaveLength(2)

    // An older release than any the organization has seen still reopens it: no release was named.
    const { recorded } = await session(org.id, '8.0.0', fingerprint)
    expect(recorded.regressed).toEqual([id])
    const [regression] = await events(id, EVENTS.issueRegressed)
    expect(regression!.payload).toMatchObject({ release: '8.0.0', resolvedInRelease: null })
    expect(await events(id, EVENTS.issueRecurred)).toHaveLength(1)
  })

  it('bulk resolves start a resolution without a release; leaving resolved clears it', async () => {
    const org = await organization('Bulk')
    await upsertRelease(database.db, { organizationId: org.id, version: '1.0.0' })
    const { id } = await issueSeenIn(org.id, null)
    await api.patchIssue(org.key, id, { status: 'resolved', inRelease: '1.0.0' })
    await api.patchIssue(org.key, id, { status: 'unresolved' })
    expect(await row(id)).toMatchObject({
      resolvedInRelease: null,
      resolvedInNextRelease: false,
      resolvedAt: null,
    })
    const actor = { organizationId: org.id, actorType: 'credential' as const, actorId: org.keyId }
    expect(
      await updateIssuesStatus(database.db, actor, { issueIds: [id], status: 'resolved' }),
    ).toMatchObject({
      changed: 1,
    })
    const resolved = await row(id)
    expect(resolved).toMatchObject({
      status: 'resolved',
      resolvedInRelease: null,
      resolvedInNextRelease: false,
    })
    expect(resolved.resolvedAt).toBeInstanceOf(Date)
  })
})

describe('naming another release for a resolved issue', () => {
  it('changes the resolution only, with a fix_release activity and no status event', async () => {
    const org = await organization('Rename')
    await upsertRelease(database.db, { organizationId: org.id, version: '4.0.0' })
    await upsertRelease(database.db, { organizationId: org.id, version: '4.1.0' })
    const { id } = await issueSeenIn(org.id, null)
    await api.patchIssue(org.key, id, { status: 'resolved', inRelease: '4.0.0' })
    const resolvedAt = (await row(id)).resolvedAt

    const renamed = (
      await body(await api.patchIssue(org.key, id, { status: 'resolved', inRelease: '4.1.0' }))
    ).issue as Body
    expect(renamed).toMatchObject({ status: 'resolved', resolvedInRelease: '4.1.0' })
    // Still resolved since it was first resolved.
    expect((await row(id)).resolvedAt).toEqual(resolvedAt)
    const toNext = (
      await body(await api.patchIssue(org.key, id, { status: 'resolved', inNextRelease: true }))
    ).issue as Body
    expect(toNext).toMatchObject({ resolvedInRelease: null, resolvedInNextRelease: true })
    const repeated = (
      await body(await api.patchIssue(org.key, id, { status: 'resolved', inNextRelease: true }))
    ).issue as Body
    expect(repeated).toEqual(toNext)
    // No release named: the resolution stays.
    expect((await body(await api.patchIssue(org.key, id, { status: 'resolved' }))).issue).toEqual(toNext)

    const fixRelease = (await activities(id)).filter((a) => a.kind === 'fix_release')
    expect(fixRelease.map((a) => [a.actorType, a.actorId, a.metadata])).toEqual([
      ['credential', org.keyId, { release: '4.1.0' }],
      ['credential', org.keyId, { nextRelease: true }],
    ])
    expect(await events(id, EVENTS.issueStatusChanged)).toHaveLength(1)
  })
})

describe('bad input', () => {
  it('answers 400 with a clear message and changes nothing', async () => {
    const org = await organization('Hostile')
    await upsertRelease(database.db, { organizationId: org.id, version: '5.0.0' })
    const { id } = await issueSeenIn(org.id, null)
    const before = await row(id)
    const cases: [unknown, string][] = [
      [{ status: 'resolved', inRelease: '5.0.1' }, unknownReleaseMessage('5.0.1')],
      [{ status: 'unresolved', inRelease: '5.0.0' }, RESOLVED_ONLY],
      [{ status: 'transient', inNextRelease: true }, RESOLVED_ONLY],
      [{ status: 'resolved', inRelease: '5.0.0', inNextRelease: true }, ONE_RESOLUTION],
      [{ status: 'resolved', inNextRelease: 'yes' }, INVALID_IN_NEXT_RELEASE],
      [{ status: 'resolved', inRelease: 5 }, INVALID_IN_RELEASE],
      [{ status: 'resolved', inRelease: '' }, INVALID_IN_RELEASE],
      [{ status: 'resolved', inRelease: 'x'.repeat(MAX_RELEASE_LENGTH + 1) }, INVALID_IN_RELEASE],
      [{ status: 'resolved', inRelease: ['5.0.0'] }, INVALID_IN_RELEASE],
      [{ status: 'resolved', inRelease: '5.0\u0000' }, UNSTORABLE_IN_RELEASE],
      [{ status: 'resolved', inRelease: '5.0.0\ud800' }, UNSTORABLE_IN_RELEASE],
      // The spec's answers keep their words when the new fields come along.
      [{ status: 'fixed', inRelease: '5.0.0' }, INVALID_STATUS],
      [{ inRelease: '5.0.0' }, INVALID_STATUS],
    ]
    for (const [sent, error] of cases) {
      const response = await api.patchIssue(org.key, id, sent)
      expect(response.status, JSON.stringify(sent).slice(0, 80)).toBe(400)
      expect(await body(response)).toEqual({ error })
    }
    const invalidJson = await api.patchIssue(org.key, id, '{"status":"resolved","inRelease":')
    expect(invalidJson.status).toBe(400)
    expect(await row(id)).toEqual(before)
    expect(await activities(id)).toHaveLength(1)
    expect(await events(id, EVENTS.issueStatusChanged)).toHaveLength(0)
  })

  it("never takes another organization's release", async () => {
    const org = await organization('Mine')
    const other = await organization('Theirs')
    await upsertRelease(database.db, { organizationId: other.id, version: '7.0.0' })
    const { id } = await issueSeenIn(org.id, null)
    const response = await api.patchIssue(org.key, id, { status: 'resolved', inRelease: '7.0.0' })
    expect(response.status).toBe(400)
    expect((await row(id)).status).toBe('unresolved')
    // Another organization's issue is not found before its release is looked at.
    const foreign = await api.patchIssue(other.key, id, { status: 'resolved', inRelease: '7.0.0' })
    expect(foreign.status).toBe(404)
  })
})

describe('the dashboard', () => {
  async function member(organizationId: string): Promise<string> {
    const email = `member-${randomUUID()}@example.com`
    const [user] = await database.db
      .insert(users)
      .values({ email, passwordHash: 'x', name: 'Ann' })
      .returning()
    await database.db.insert(memberships).values({ organizationId, userId: user!.id, role: 'member' })
    const token = await encode({ token: { sub: user!.id, email }, secret: process.env.AUTH_SECRET! })
    return `next-auth.session-token=${token}`
  }
  const form = (fields: Record<string, string>) => {
    const data = new FormData()
    for (const [name, value] of Object.entries(fields)) data.set(name, value)
    return data
  }

  it('offers the releases latest first, resolves in one or in the next, and tells the history', async () => {
    const org = await organization('Dashboard')
    signedIn.cookie = await member(org.id)
    for (const version of ['1.10.0', '1.2.0', '1.9.1'])
      await upsertRelease(database.db, { organizationId: org.id, version })
    expect(await releaseChoices(database.db, org.id)).toEqual(['1.10.0', '1.9.1', '1.2.0'])
    const { id, fingerprint } = await issueSeenIn(org.id, '1.2.0')
    // The session's release joined; semver still orders them.
    expect(await releaseChoices(database.db, org.id)).toEqual(['1.10.0', '1.9.1', '1.2.0'])

    expect(await changeStatusAction(id, null, form({ status: RESOLVE_IN_RELEASE }))).toEqual({
      ok: false,
      error: 'Choose the release that contains the fix.',
    })
    expect(
      await changeStatusAction(id, null, form({ status: RESOLVE_IN_RELEASE, inRelease: '2.0.0' })),
    ).toEqual({
      ok: false,
      error: unknownReleaseMessage('2.0.0'),
    })
    expect((await row(id)).status).toBe('unresolved')
    expect(
      await changeStatusAction(id, null, form({ status: RESOLVE_IN_RELEASE, inRelease: '1.9.1' })),
    ).toEqual({
      ok: true,
      message: 'Status is now Resolved in 1.9.1.',
    })
    expect(await changeStatusAction(id, null, form({ status: RESOLVE_IN_NEXT_RELEASE }))).toEqual({
      ok: true,
      message: 'Status is now Resolved in the next release.',
    })
    await session(org.id, '1.10.1', null)
    const { sessionId } = await session(org.id, '1.11.0', fingerprint)
    const history = await issueHistory(database.db, org.id, id)
    expect(
      history.map((entry) => [
        entry.kind,
        entry.fixRelease,
        entry.nextRelease,
        entry.release,
        entry.actor.name,
      ]),
    ).toEqual([
      ['created', null, false, null, 'Session analysis'],
      ['status_changed', '1.9.1', false, null, 'Ann'],
      ['fix_release', null, true, null, 'Ann'],
      ['fix_release', '1.10.1', false, null, 'Session analysis'],
      ['regressed', '1.10.1', false, '1.11.0', 'Session analysis'],
    ])
    expect(history.at(-1)!.sessionId).toBe(sessionId)
  })
})
