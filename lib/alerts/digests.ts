import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { alertMessages, alertRuleEvents, alertRules } from '@/db/schema'
import { dashboardUrl } from '@/lib/sessions/session-links'
import { databaseNow, rowsOf } from './clock'
import { type DigestContent, digestData, slackDigestBody } from './payloads'
import { type QueuedDeliveries, queueDelivery } from './queue-delivery'

/** Items a digest names; the rest are counted ("and M more"). */
export const DIGEST_TOP = 10

/**
 * (rule, window) pairs with digest events not yet in a message, whose window (as each event
 * recorded it: start and length) ended by `cutoff`. Reads alert_rule_events_digest_due_idx.
 */
async function endedWindows(
  db: Db,
  cutoff: Date,
): Promise<{ ruleId: string; windowStart: Date; windowMinutes: number }[]> {
  const rows = rowsOf(
    await db.execute(sql`
      select distinct e.rule_id, e.window_start, e.window_minutes
      from alert_rule_events e
      where e.decision = 'digest' and e.message_id is null
        -- A window is at least a minute: a bound on window_start the index can range over.
        and e.window_start <= ${cutoff.toISOString()}::timestamptz - interval '1 minute'
        and e.window_start + make_interval(mins => e.window_minutes) <= ${cutoff.toISOString()}::timestamptz
        -- Not a window whose digest went (an event can only join one after it with a test's clock).
        and not exists (select 1 from alert_messages m
                        where m.rule_id = e.rule_id and m.kind = 'digest' and m.window_start = e.window_start
                          and m.window_minutes = e.window_minutes)
      order by e.window_start
      limit 500`),
  )
  return rows.map((r) => ({
    ruleId: String(r.rule_id),
    windowStart: new Date(String(r.window_start)),
    windowMinutes: Number(r.window_minutes),
  }))
}

/**
 * One window's digest, in one transaction. The rule's row lock is taken first, the lock every
 * decision of the rule holds while it reads the database clock and records its event: a
 * decision that committed before is in the digest, and one after has a later time, so it falls
 * in a later window (evaluate.ts). The message is inserted next, and the unique (rule, window)
 * index of digests makes a second instance's insert do nothing, so each window gets one digest
 * however many sweeps run. The window's events are then claimed by setting their message id,
 * and the delivery queued.
 */
async function writeDigest(
  db: Db,
  window: { ruleId: string; windowStart: Date; windowMinutes: number },
  at: Date | undefined,
  into: QueuedDeliveries,
): Promise<boolean> {
  const { ruleId, windowStart, windowMinutes } = window
  return db.transaction(async (tx) => {
    // Explicit, though the digest's foreign key to the rule would also wait for a decision's lock.
    const [rule] = await tx.select().from(alertRules).where(eq(alertRules.id, ruleId)).for('update')
    if (!rule) return false
    const now = at ?? (await databaseNow(tx))
    const [message] = await tx
      .insert(alertMessages)
      .values({
        ruleId,
        organizationId: rule.organizationId,
        kind: 'digest',
        windowStart,
        windowMinutes,
        items: 0,
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning()
    if (!message) return false
    const events = await tx
      .update(alertRuleEvents)
      .set({ messageId: message.id })
      .where(
        and(
          eq(alertRuleEvents.ruleId, ruleId),
          eq(alertRuleEvents.windowStart, windowStart),
          eq(alertRuleEvents.windowMinutes, windowMinutes),
          eq(alertRuleEvents.decision, 'digest'),
          isNull(alertRuleEvents.messageId),
        ),
      )
      .returning({
        issueId: alertRuleEvents.issueId,
        signalId: alertRuleEvents.signalId,
        title: alertRuleEvents.title,
      })
    await tx.update(alertMessages).set({ items: events.length }).where(eq(alertMessages.id, message.id))
    const groups = new Map<string, DigestContent['top'][number]>()
    for (const e of events) {
      const key = e.issueId ?? e.signalId ?? e.title
      const group = groups.get(key)
      if (group) group.count++
      else
        groups.set(key, {
          issueId: e.issueId,
          signalId: e.signalId,
          title: e.title,
          count: 1,
          url: e.issueId
            ? dashboardUrl(`/issues/${e.issueId}`)
            : e.signalId
              ? dashboardUrl(`/signals/${e.signalId}`)
              : null,
        })
    }
    const content: DigestContent = {
      windowStart,
      windowMinutes,
      events: events.length,
      subjects: groups.size,
      top: [...groups.values()].sort((a, b) => b.count - a.count).slice(0, DIGEST_TOP),
    }
    await queueDelivery(
      tx,
      rule,
      { id: message.id, issueId: null, createdAt: now },
      { slackBody: slackDigestBody(rule, content), event: 'alert.digest', data: digestData(rule, content) },
      into,
    )
    return true
  })
}

/**
 * Writes the digest of every ended window that has digest events and no digest yet. `now` is
 * for tests; without it the cutoff is the database's clock.
 */
export async function sweepDigests(db: Db, now?: Date): Promise<QueuedDeliveries & { digests: number }> {
  const into: QueuedDeliveries = { slack: [], webhook: [] }
  let digests = 0
  for (const window of await endedWindows(db, now ?? (await databaseNow(db))))
    if (await writeDigest(db, window, now, into)) digests++
  return { ...into, digests }
}
