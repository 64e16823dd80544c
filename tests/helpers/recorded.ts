import { and, eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { issueSessions, issues, outbox, replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { createOrganization } from '@/lib/orgs/create-organization'

/**
 * An organization to ingest into, and what processing recorded for it, read straight from the
 * tables: the fault suites compare these before and after a crash or an outage to prove
 * nothing was written twice or half-written. `db` is a getter because suites open their
 * database in beforeAll.
 */
export function recordedRows(db: () => Db) {
  return {
    newOrganization: async (name: string, plan: 'free' | 'paid' = 'free') => {
      const organizationId = (await createOrganization(db(), { name, plan })).id
      const key = (await createKey(db(), { organizationId, type: 'ingest' })).key
      return { organizationId, key }
    },
    sessionOf: async (organizationId: string, externalId: string) => {
      const [row] = await db()
        .select()
        .from(replaySessions)
        .where(
          and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)),
        )
      return row
    },
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
