import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { erasures, replaySessions } from '@/db/schema'
import { recordAudit } from '@/lib/audit/record'
import { getConfig } from '@/lib/config'
import { logger } from '@/lib/log'
import { deleteSessions } from '@/lib/retention/delete-sessions'
import { redactSavedSearchesNaming } from '@/lib/saved-searches/redact-person'
import type { BlobStore } from '@/lib/storage'
import { forgetJobRuns, silenceDeliveries } from './erasure-deliveries'
import { eraseDerived } from './erasure-derived'
import { erasureView, getErasureRow } from './erasures'
import { deleteExportsNaming } from './export-sweep'
import { openPerson, type PersonRef, personSessionsWhere } from './person'
import { privacySafeError } from './safe-failure'

export interface ErasureDeps {
  db: Db
  blobs: BlobStore
}

// Sessions handled per transaction: their links, counts and messages, then their keys and blobs.
const CHUNK = 100

type Counts = Record<string, number>

function added(counts: Counts, more: object): Counts {
  const next = { ...counts }
  for (const [name, value] of Object.entries(more))
    if (typeof value === 'number') next[name] = (next[name] ?? 0) + value
  return next
}

/**
 * Runs one erasure to its end (docs/privacy.md#erasure): every session of the person, also
 * those recorded after the request, a chunk at a time — first what was derived from them
 * (issues, signals, insights, queued messages: eraseDerived, silenceDeliveries), then the
 * sessions themselves (data keys, blobs, rows: deleteSessions) — then the messages naming the
 * person, and last the request forgets the person. Counts are saved after each chunk, so GET
 * shows progress; a retry continues where a failed run stopped, and a completed erasure is
 * left as it is.
 */
export async function runErasure(
  deps: ErasureDeps,
  input: { organizationId: string; erasureId: string },
): Promise<{ status: string; counts: Counts }> {
  const { db, blobs } = deps
  const row = await getErasureRow(db, input.organizationId, input.erasureId)
  if (row.status === 'completed') return { status: row.status, counts: row.counts }
  if (!row.personSealed) throw new Error(`erasure ${row.id} has no person to erase`)
  const person = openPerson(row.personKind, row.personSealed)
  const thisErasure = and(eq(erasures.organizationId, row.organizationId), eq(erasures.id, row.id))
  await db
    .update(erasures)
    .set({ status: 'running', startedAt: sql`coalesce(${erasures.startedAt}, now())`, error: null })
    .where(thisErasure)
  let counts = row.counts
  // Every identifier the erased sessions carried: exports naming any of them go too.
  const identifiers: PersonRef[] = [person]
  // The names they were recorded under: only saved searches can name them by it.
  const userNames = new Set<string>()
  const baseUrl = getConfig().baseUrl
  try {
    for (;;) {
      const sessions = await db
        .select({
          id: replaySessions.id,
          externalId: replaySessions.externalId,
          userId: replaySessions.userId,
          userEmail: replaySessions.userEmail,
          anonymousId: replaySessions.anonymousId,
          userName: replaySessions.userName,
        })
        .from(replaySessions)
        .where(personSessionsWhere(row.organizationId, person))
        .limit(CHUNK)
      if (sessions.length === 0) break
      for (const s of sessions) {
        rememberIdentifiers(identifiers, s)
        if (s.userName) userNames.add(s.userName)
      }
      const ids = sessions.map((s) => s.id)
      counts = await db.transaction(async (tx) => {
        // A processing pass still holding one of these sessions records nothing after this:
        // its record step finds its claim gone under the same row lock (process-session.ts).
        await tx.update(replaySessions).set({ processingClaim: null }).where(inArray(replaySessions.id, ids))
        const derived = await eraseDerived(tx, {
          organizationId: row.organizationId,
          sessionIds: ids,
          baseUrl,
        })
        // Our ids are UUIDs, safe to find anywhere in a body (a replay link); the recorder's
        // session ids and the person's identifier may be as short as "42", so only a whole
        // JSON string value counts as naming them.
        const silenced = await silenceDeliveries(tx, row.organizationId, [
          ...ids,
          ...sessions.map((s) => JSON.stringify(s.externalId)),
          ...derived.deletedIssueIds,
        ])
        await forgetJobRuns(tx, ids)
        const next = added(counts, { ...derived, ...silenced })
        await tx.update(erasures).set({ counts: next }).where(thisErasure)
        return next
      })
      const deleted = await deleteSessions(db, blobs, { organizationId: row.organizationId, sessionIds: ids })
      counts = added(counts, deleted)
      await db.update(erasures).set({ counts }).where(thisErasure)
    }
    counts = added(counts, {
      exportsDeleted: await deleteExportsNaming(db, blobs, row.organizationId, identifiers),
      // Saved searches are the organization's, but a query can name the person (user.id = 42).
      // Their name too (`user.name = "Ada Lovelace"`), which identifies them but finds no data.
      savedSearchesRedacted: await redactSavedSearchesNaming(db, row.organizationId, [
        ...identifiers.map((p) => p.value),
        ...userNames,
      ]),
    })
    const finished = await db.transaction(async (tx) => {
      const silenced = await silenceDeliveries(
        tx,
        row.organizationId,
        [
          // An e-mail address cannot be mistaken for another value; an id may be "42".
          person.kind === 'email' ? person.value : JSON.stringify(person.value),
        ],
        {
          caseless: person.kind === 'email',
        },
      )
      const final = added(counts, silenced)
      const [done] = await tx
        .update(erasures)
        .set({ counts: final, status: 'completed', completedAt: sql`now()`, personSealed: null, error: null })
        .where(thisErasure)
        .returning()
      await recordAudit(
        tx,
        { organizationId: row.organizationId, actorType: 'system', actorId: 'erasure' },
        { action: 'erasure.completed', targetType: 'erasure', targetId: row.id, metadata: { counts: final } },
      )
      return done!
    })
    return { status: finished.status, counts: erasureView(finished).counts }
  } catch (error) {
    // The request stays `running` with what it did so far: the job's retry continues it. What
    // is kept, logged and rethrown (the job's record) never carries the person's identifier.
    const safe = privacySafeError(error)
    await db.update(erasures).set({ error: safe.message }).where(thisErasure)
    logger.warn({ err: safe, erasureId: row.id }, 'erasure stopped; its retry continues it')
    throw safe
  }
}

function rememberIdentifiers(
  into: PersonRef[],
  session: { userId: string | null; userEmail: string | null; anonymousId: string },
): void {
  const seen = new Set(into.map((p) => `${p.kind}\n${p.value}`))
  const add = (person: PersonRef) => {
    if (!seen.has(`${person.kind}\n${person.value}`)) into.push(person)
  }
  add({ kind: 'anonymous_id', value: session.anonymousId })
  if (session.userId) add({ kind: 'user_id', value: session.userId })
  if (session.userEmail) add({ kind: 'email', value: session.userEmail })
}

/** Marks an erasure failed once its job has given up (the error stays; the person is forgotten). */
export async function failErasure(
  db: Db,
  input: { organizationId: string; erasureId: string },
): Promise<void> {
  await db
    .update(erasures)
    // A failed erasure keeps its counts and error, not the person: a new request starts over.
    .set({ status: 'failed', personSealed: null })
    .where(
      and(
        eq(erasures.organizationId, input.organizationId),
        eq(erasures.id, input.erasureId),
        sql`${erasures.status} <> 'completed'`,
      ),
    )
}
