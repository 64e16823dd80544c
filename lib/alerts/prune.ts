import { and, eq, inArray, lt } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { alertMessages, alertRuleEvents, alertRules } from '@/db/schema'

/** How long a rule's history (its events and messages) is kept. */
export const ALERT_HISTORY_DAYS = 90

/**
 * Deletes alert history older than ALERT_HISTORY_DAYS, rule by rule so each delete reads the
 * (rule, created_at) indexes, a chunk at a time (no long transaction). Events go first: a
 * digest's events point at its message. Deliveries keep their own rows (the message link is
 * set null). Part of the retention sweep.
 */
export async function pruneAlertHistory(
  db: Db,
  options: { now?: Date; chunk?: number } = {},
): Promise<{ events: number; messages: number }> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - ALERT_HISTORY_DAYS * 86_400_000)
  const chunk = options.chunk ?? 1_000
  const pruned = { events: 0, messages: 0 }
  const rules = await db.select({ id: alertRules.id }).from(alertRules)
  for (const { id: ruleId } of rules) {
    for (const [table, key] of [
      [alertRuleEvents, 'events'],
      [alertMessages, 'messages'],
    ] as const) {
      while (true) {
        const old = db
          .select({ id: table.id })
          .from(table)
          .where(and(eq(table.ruleId, ruleId), lt(table.createdAt, cutoff)))
          .limit(chunk)
        const deleted = await db.delete(table).where(inArray(table.id, old)).returning({ id: table.id })
        pruned[key] += deleted.length
        if (deleted.length < chunk) break
      }
    }
  }
  return pruned
}
