import { and, eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { issueSessions, issues, outbox } from '@/db/schema'

/**
 * What processing recorded, read straight from the tables: the fault suites compare these
 * before and after a crash or an outage to prove nothing was written twice or half-written.
 * `db` is a getter because suites open their database in beforeAll.
 */
export function recordedRows(db: () => Db) {
  return {
    issuesOf: (organizationId: string) =>
      db().select().from(issues).where(eq(issues.organizationId, organizationId)),
    outboxOf: (organizationId: string, name: string) =>
      db()
        .select()
        .from(outbox)
        .where(and(eq(outbox.organizationId, organizationId), eq(outbox.name, name))),
    linksOf: (sessionId: string) =>
      db().select().from(issueSessions).where(eq(issueSessions.sessionId, sessionId)),
  }
}
