import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { alertMessages, alertRuleEvents, alertRules } from '@/db/schema'
import { dashboardUrl } from './candidates'
import { type DigestContent, digestData, slackDigestBody } from './payloads'
import { type QueuedDeliveries, queueDelivery } from './queue-delivery'

/** Items a digest names; the rest are counted ("and M more"). */
export const DIGEST_TOP = 10

type Row = Record<string, unknown>
const rowsOf = (result: unknown): Row[] =>
  Array.isArray(result) ? (result as Row[]) : ((result as { rows?: Row[] }).rows ?? [])

/** (rule, window) pairs with digest events not yet in a message, whose window has ended by `now`. */
async function endedWindows(db: Db, now: Date): Promise<{ ruleId: string; windowStart: Date }[]> {
  const rows = rowsOf(
    await db.execute(sql`
      select distinct e.rule_id, e.window_start
      from alert_rule_events e join alert_rules r on r.id = e.rule_id
      where e.decision = 'digest' and e.message_id is null
        and e.window_start + make_interval(mins => r.window_minutes) <= ${now.toISOString()}::timestamptz
        -- An event whose decision committed after its window's digest went stays out of it
        -- (its history still shows it), and does not bring the window back here.
        and not exists (select 1 from alert_messages m
                        where m.rule_id = e.rule_id and m.kind = 'digest' and m.window_start = e.window_start)
      order by e.window_start
      limit 500`),
  )
  return rows.map((r) => ({ ruleId: String(r.rule_id), windowStart: new Date(String(r.window_start)) }))
}

/**
 * One window's digest, in one transaction: the message is inserted first, and the unique
 * (rule, window) index of digests makes a second instance's insert wait for the first and
 * then do nothing, so each window gets one digest however many sweeps run. The window's
 * events are then claimed by setting their message id, and the delivery queued.
 */
async function writeDigest(
  db: Db,
  ruleId: string,
  windowStart: Date,
  now: Date,
  into: QueuedDeliveries,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [rule] = await tx.select().from(alertRules).where(eq(alertRules.id, ruleId))
    if (!rule) return false
    const [message] = await tx
      .insert(alertMessages)
      .values({
        ruleId,
        organizationId: rule.organizationId,
        kind: 'digest',
        windowStart,
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

/** Writes the digest of every ended window that has digest events and no digest yet. */
export async function sweepDigests(
  db: Db,
  now: Date = new Date(),
): Promise<QueuedDeliveries & { digests: number }> {
  const into: QueuedDeliveries = { slack: [], webhook: [] }
  let digests = 0
  for (const { ruleId, windowStart } of await endedWindows(db, now))
    if (await writeDigest(db, ruleId, windowStart, now, into)) digests++
  return { ...into, digests }
}
