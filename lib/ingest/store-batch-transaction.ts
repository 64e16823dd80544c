import { eq, sql } from 'drizzle-orm'
import { type AutomationKind, replayBatches, replaySessions } from '@/db/schema'
import type { Db } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { commitWithEvents } from '@/lib/outbox/commit'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { mergeDebugIdsSql } from './merge-debug-ids'
import type { ReplayBatch } from './schema'
import type { sessionFields } from './session-fields'

export interface TransactionInput {
  organizationId: string
  batch: ReplayBatch
  fields: ReturnType<typeof sessionFields>
  firstTimestamp: number
  lastTimestamp: number
  body: Uint8Array
  blobKey: string
  /** Null or absent: a person's batch. */
  automation?: AutomationKind | null
}

/**
 * The general way to store a batch's rows: a transaction of a session upsert (which waits for
 * and then sees a session another request is creating), the batch insert, the session update
 * and the outbox event. storeBatch uses it only when the one-statement path cannot decide.
 */
export async function storeBatchInTransaction(
  db: Db,
  jobs: JobsEngine,
  input: TransactionInput,
): Promise<{ stored: boolean; sessionId: string; finalizeEventId: string | null }> {
  const { organizationId, batch, fields, firstTimestamp, lastTimestamp, body, blobKey, automation } = input
  const externalId = batch.session.id
  const sequence = batch.replay.sequence
  const events = batch.replay.events
  return commitWithEvents(
    db,
    async (tx) => {
      const [session] = await tx
        .insert(replaySessions)
        .values({ organizationId, externalId, ...fields, automation: automation ?? null })
        .onConflictDoUpdate({
          target: [replaySessions.organizationId, replaySessions.externalId],
          set: { lastReceivedAt: sql`now()` },
        })
        .returning({ id: replaySessions.id })
      const sessionId = session!.id
      const [inserted] = await tx
        .insert(replayBatches)
        .values({
          organizationId,
          sessionId,
          windowId: batch.session.windowId,
          sequence,
          eventCount: events.length,
          firstTimestamp,
          lastTimestamp,
          byteSize: body.byteLength,
          blobKey,
          pageUrl: batch.page.url,
          flush: batch.flush,
        })
        .onConflictDoNothing({
          target: [
            replayBatches.organizationId,
            replayBatches.sessionId,
            replayBatches.sequence,
            replayBatches.windowId,
          ],
        })
        .returning({ id: replayBatches.id })
      if (!inserted) return { stored: false, sessionId, finalizeEventId: null }

      const final = batch.flush === 'final'
      await tx
        .update(replaySessions)
        .set({
          batchCount: sql`${replaySessions.batchCount} + 1`,
          eventCount: sql`${replaySessions.eventCount} + ${events.length}`,
          byteSize: sql`${replaySessions.byteSize} + ${body.byteLength}`,
          startedAt: sql`least(${replaySessions.startedAt}, ${fields.startedAt.toISOString()}::timestamptz)`,
          lastActivityAt: sql`greatest(${replaySessions.lastActivityAt}, ${fields.lastActivityAt.toISOString()}::timestamptz)`,
          lastReceivedAt: sql`now()`,
          // Later batches carry what identify() learnt; an absent value keeps what is known.
          userId: sql`coalesce(${fields.userId}::text, ${replaySessions.userId})`,
          userProperties: fields.userProperties
            ? sql`${JSON.stringify(fields.userProperties)}::jsonb`
            : sql`${replaySessions.userProperties}`,
          userEmail: sql`coalesce(${fields.userEmail}::text, ${replaySessions.userEmail})`,
          userName: sql`coalesce(${fields.userName}::text, ${replaySessions.userName})`,
          userAgent: sql`coalesce(${replaySessions.userAgent}, ${fields.userAgent}::text)`,
          language: sql`coalesce(${replaySessions.language}, ${fields.language}::text)`,
          // The first release a batch named stays: a session is one build's (docs/source-maps.md).
          release: sql`coalesce(${replaySessions.release}, ${fields.release}::text)`,
          // The batch's pairs bound once as `incoming.ids`, merged as the one statement does.
          debugIds: sql`(select ${sql.raw(mergeDebugIdsSql('"replay_sessions"."debug_ids"', 'incoming.ids'))} from (select ${fields.debugIds ? JSON.stringify(fields.debugIds) : null}::jsonb as ids) incoming)`,
          // A part of the page the recorder stopped recording stays missing from the replay.
          degraded: sql`${replaySessions.degraded} or ${fields.degraded}::boolean`,
          // Marked, never cleared, and only before a pass counted the session (as the one statement).
          automation: sql`coalesce(${replaySessions.automation}, case when ${replaySessions.processedAt} is null then ${automation ?? null}::text end)`,
          // A batch after processing re-opens the session for another pass instead of being lost.
          status: sql`case when ${replaySessions.status} in ('processed', 'failed') then 'receiving' else ${replaySessions.status} end`,
          // New content deserves fresh attempts: a session given up on (over budget, failures)
          // is analysed again once more of it arrives.
          processingAttempts: sql`case when ${replaySessions.status} in ('processed', 'failed') then 0 else ${replaySessions.processingAttempts} end`,
          ...(final ? { processingRequestedAt: sql`now()` } : {}),
        })
        .where(eq(replaySessions.id, sessionId))

      const finalizeEventId = final
        ? await enqueueEvent(tx, {
            organizationId,
            name: EVENTS.sessionFinalize,
            payload: { organizationId, sessionId },
            dedupeKey: `session.finalize:${sessionId}:${sequence}`,
          })
        : null
      return { stored: true, sessionId, finalizeEventId }
    },
    jobs,
  )
}
