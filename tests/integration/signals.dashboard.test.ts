import { and, count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { outbox, replaySessions, signalMatches, signals } from '@/db/schema'
import { getJobsEngine } from '@/inngest/app'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { InvalidInputError, NotFoundError } from '@/lib/errors'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { EVENTS } from '@/lib/outbox/events'
import { backfillSignal } from '@/lib/signals/backfill'
import { createSignal } from '@/lib/signals/create-signal'
import { deleteSignal } from '@/lib/signals/delete-signal'
import { getSignal } from '@/lib/signals/get-signal'
import { previewSignal } from '@/lib/signals/preview-signal'
import { setSignalStatus } from '@/lib/signals/set-signal-status'
import { evidenceSummary, listSignalMatches } from '@/lib/signals/signal-matches'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { endingNow, ingestSession, loadRecording } from '../helpers/pipeline'
import { waitFor } from '../helpers/wait'

// The dashboard's server actions are thin: they call these functions with the member's
// organization; the backfill event is handed to the engine when it commits. Tested here against a real database and the real
// in-process jobs engine, with sessions sent through the ingest route and processed.

let database: TestDatabase
let organizationId: string
let otherOrganizationId: string
let key: string
let app: JobsEngine

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Shop' })).id
  otherOrganizationId = (await createOrganization(database.db, { name: 'Elsewhere' })).id
  key = (await createKey(database.db, { organizationId, type: 'ingest' })).key
  app = getJobsEngine()
  await app.start()
})
afterAll(async () => {
  await app.stop()
  useDatabase(undefined)
  await database.close()
})

async function signalRow(id: string) {
  const [row] = await database.db.select().from(signals).where(eq(signals.id, id))
  return row
}

/** A session with a failed POST on /checkout, sent through ingest and processed by the engine. */
async function processCheckoutFailure(externalId: string) {
  await ingestSession(key, externalId, endingNow(loadRecording('network-500').events), { final: true })
  return waitFor(`${externalId} to be processed`, async () => {
    const [row] = await database.db
      .select()
      .from(replaySessions)
      .where(
        and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)),
      )
    return row?.status === 'processed' ? row : undefined
  })
}

async function matchesOf(signalId: string) {
  return database.db.select().from(signalMatches).where(eq(signalMatches.signalId, signalId))
}

const totals = async () => ({
  signals: (await database.db.select({ n: count() }).from(signals))[0]!.n,
  outbox: (await database.db.select({ n: count() }).from(outbox))[0]!.n,
})

describe('signals from the dashboard', () => {
  let checkoutSignal: string
  let lateSignal: string

  it('creates a signal and starts its backfill at once, through the outbox, after the commit', async () => {
    const { signal, eventId } = await createSignal(database.db, {
      organizationId,
      name: '  Checkout failures ',
      prompt: 'failed request on /checkout',
    })
    expect(signal).toMatchObject({
      name: 'Checkout failures',
      status: 'active',
      backfillStatus: 'pending',
      matchCount: 0,
      lastMatchAt: null,
    })
    const [sent] = await database.db.select().from(outbox).where(eq(outbox.eventId, eventId!))
    expect(sent).toMatchObject({ name: EVENTS.signalCreated, dedupeKey: `signal.backfill:${signal.id}` })
    expect(sent!.dispatchedAt).toBeInstanceOf(Date)
    await waitFor('the backfill', async () => (await signalRow(signal.id))?.backfillStatus === 'completed')
    checkoutSignal = signal.id
  })

  it('refuses bad input with the reason and creates nothing', async () => {
    const before = await totals()
    const cases: [{ name: string; prompt: string }, string][] = [
      [{ name: '   ', prompt: 'failed request' }, 'Signal name must not be empty'],
      [{ name: 'x'.repeat(101), prompt: 'failed request' }, 'Signal name must be at most 100 characters'],
      [{ name: 'Empty', prompt: '   ' }, 'Signal prompt must be at least 3 characters'],
      [{ name: 'Short', prompt: 'ab' }, 'Signal prompt must be at least 3 characters'],
      [{ name: 'Long', prompt: 'y'.repeat(2001) }, 'Signal prompt must be at most 2000 characters'],
    ]
    for (const [input, message] of cases) {
      const attempt = createSignal(database.db, { organizationId, ...input })
      await expect(attempt).rejects.toThrow(InvalidInputError)
      await expect(attempt).rejects.toThrow(message)
    }
    expect(await totals()).toEqual(before)
  })

  it('matches no new session while paused, and new sessions again once resumed', async () => {
    const paused = await setSignalStatus(database.db, {
      organizationId,
      signalId: checkoutSignal,
      status: 'paused',
    })
    expect(paused.signal.status).toBe('paused')
    expect(paused.eventId).toBeNull()
    const whilePaused = await processCheckoutFailure('while-paused')
    expect(await matchesOf(checkoutSignal)).toHaveLength(0)
    expect((await signalRow(checkoutSignal))!.matchCount).toBe(0)

    const resumed = await setSignalStatus(database.db, {
      organizationId,
      signalId: checkoutSignal,
      status: 'active',
    })
    expect(resumed.signal.status).toBe('active')
    // Its backfill had completed, so resuming asks for no second scan.
    expect(resumed.eventId).toBeNull()
    const afterResume = await processCheckoutFailure('after-resume')
    const matches = await matchesOf(checkoutSignal)
    expect(matches.map((m) => m.sessionId)).toEqual([afterResume.id])
    expect(matches.map((m) => m.sessionId)).not.toContain(whilePaused.id)
    expect((await signalRow(checkoutSignal))!.matchCount).toBe(1)
  })

  it('holds the scan of past sessions while paused and runs it on resume', async () => {
    // The engine is held while the signal is created and paused, so its queued backfill cannot
    // start in between (on a busy machine it did, and found the signal still active).
    await app.stop()
    const { signal, eventId } = await createSignal(database.db, {
      organizationId,
      name: 'Checkout, created paused',
      prompt: 'failed request on /checkout',
    })
    lateSignal = signal.id
    await setSignalStatus(database.db, { organizationId, signalId: signal.id, status: 'paused' })
    // The queued backfill finds the signal paused: nothing is matched and it stays pending.
    expect(await backfillSignal(database.db, { organizationId, signalId: signal.id })).toBe(0)
    expect((await signalRow(signal.id))!.backfillStatus).toBe('pending')
    expect(eventId).not.toBeNull()
    await app.start()

    const resumed = await setSignalStatus(database.db, {
      organizationId,
      signalId: signal.id,
      status: 'active',
    })
    expect(resumed.eventId).not.toBeNull()
    const done = await waitFor('the resumed backfill', async () => {
      const row = await signalRow(signal.id)
      return row?.backfillStatus === 'completed' ? row : undefined
    })
    // Both processed checkout sessions of the last 30 days, the paused-time one included.
    expect(done.matchCount).toBe(2)
    expect(done.lastMatchAt).toBeInstanceOf(Date)
  })

  it('lists the matched sessions newest first with user, entry URL, start and evidence, page by page', async () => {
    const scope = { organizationId, signalId: lateSignal }
    const first = await listSignalMatches(database.db, scope, { limit: 1 })
    expect(first.items).toHaveLength(1)
    expect(first.nextCursor).not.toBeNull()
    const second = await listSignalMatches(database.db, scope, { limit: 1, cursor: first.nextCursor! })
    expect(second.items).toHaveLength(1)
    expect(second.nextCursor).toBeNull()
    const [newer, older] = [first.items[0]!, second.items[0]!]
    expect(newer.session.id).not.toBe(older.session.id)
    expect(newer.matchedAt >= older.matchedAt).toBe(true)
    for (const match of [newer, older]) {
      expect(match).toMatchObject({
        matcher: 'deterministic',
        evidence: 'Session had a failed request; visited /checkout',
        session: { user: 'ada@example.com', entryUrl: 'http://127.0.0.1/' },
      })
      expect(Date.parse(match.session.startedAt)).toBeLessThan(Date.now())
      expect(match.session.durationMs).toBeGreaterThan(0)
    }
    const all = await listSignalMatches(database.db, scope, { limit: 25 })
    expect(all.items.map((m) => m.id)).toEqual([newer.id, older.id])
    // A cursor is bound to its signal: another list refuses it.
    await expect(
      listSignalMatches(
        database.db,
        { organizationId, signalId: checkoutSignal },
        { limit: 1, cursor: first.nextCursor! },
      ),
    ).rejects.toThrow(InvalidInputError)
  })

  it('says in words why a match was made, whichever matcher made it', () => {
    expect(evidenceSummary({ matcher: 'model', reason: 'The user clicked Pay three times.' })).toEqual({
      matcher: 'model',
      text: 'The user clicked Pay three times.',
    })
    expect(
      evidenceSummary({
        matcher: 'deterministic',
        conditions: ['rage'],
        paths: [],
        keywords: ['coupon', 'promo'],
      }),
    ).toEqual({ matcher: 'deterministic', text: 'Session had a rage click; mentions “coupon”, “promo”' })
    expect(evidenceSummary(null).matcher).toBe('unknown')
  })

  it("answers NotFound for another organization's signal, and changes nothing", async () => {
    const before = await signalRow(lateSignal)
    const other = { organizationId: otherOrganizationId, signalId: lateSignal }
    await expect(getSignal(database.db, other)).rejects.toThrow(NotFoundError)
    await expect(setSignalStatus(database.db, { ...other, status: 'paused' })).rejects.toThrow(NotFoundError)
    await expect(deleteSignal(database.db, other)).rejects.toThrow(NotFoundError)
    await expect(listSignalMatches(database.db, other, { limit: 10 })).rejects.toThrow(NotFoundError)
    for (const signalId of ['not-a-uuid', '00000000-0000-4000-8000-000000000000'])
      await expect(getSignal(database.db, { organizationId, signalId })).rejects.toThrow('Signal not found')
    await expect(
      setSignalStatus(database.db, { organizationId, signalId: lateSignal, status: 'deleted' }),
    ).rejects.toThrow(InvalidInputError)
    expect(await signalRow(lateSignal)).toEqual(before)
    expect(await matchesOf(lateSignal)).toHaveLength(2)
  })

  it('deletes a signal with its matches and leaves the sessions and other signals alone', async () => {
    const sessionsBefore = (await database.db.select({ n: count() }).from(replaySessions))[0]!.n
    expect(await deleteSignal(database.db, { organizationId, signalId: lateSignal })).toEqual({
      deletedMatches: 2,
    })
    expect(await signalRow(lateSignal)).toBeUndefined()
    expect(await matchesOf(lateSignal)).toHaveLength(0)
    expect((await database.db.select({ n: count() }).from(replaySessions))[0]!.n).toBe(sessionsBefore)
    expect(await matchesOf(checkoutSignal)).toHaveLength(1)
    await expect(deleteSignal(database.db, { organizationId, signalId: lateSignal })).rejects.toThrow(
      NotFoundError,
    )
  })

  it('previews how a prompt is read and how many recent sessions match, on the request path, storing nothing', async () => {
    await processCheckoutFailure('preview')
    const before = await totals()
    const [row] = await database.db
      .select({ n: count() })
      .from(replaySessions)
      .where(eq(replaySessions.organizationId, organizationId))
    const sessions = row!.n
    // The recording fails POST /api/checkout on the page /checkout: the path is the request's only.
    const preview = await previewSignal(database.db, {
      organizationId,
      prompt: 'failed request on /api/checkout',
    })
    expect(preview).toEqual({
      conditions: [
        'a request failed',
        'the user visited /api/checkout or a page below it, or a request to it failed',
      ],
      checkable: true,
      checked: sessions,
      matched: sessions,
      days: 7,
    })
    expect(
      await previewSignal(database.db, { organizationId, prompt: 'failed request on /api/pay' }),
    ).toMatchObject({
      checked: sessions,
      matched: 0,
    })
    expect(await previewSignal(database.db, { organizationId, prompt: 'why do they go' })).toEqual({
      conditions: [],
      checkable: false,
      checked: 0,
      matched: 0,
      days: 7,
    })
    // Another organization's sessions are not looked at.
    expect(
      await previewSignal(database.db, {
        organizationId: otherOrganizationId,
        prompt: 'failed request on /api/checkout',
      }),
    ).toMatchObject({ checked: 0, matched: 0 })
    await expect(previewSignal(database.db, { organizationId, prompt: 'x' })).rejects.toThrow(
      InvalidInputError,
    )
    expect(await totals()).toEqual(before)
  })
})
