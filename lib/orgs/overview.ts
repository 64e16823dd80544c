import { and, count, eq, isNull, type SQL } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { credentials, insights, issues, replaySessions, signals } from '@/db/schema'

export interface OrganizationOverview {
  sessions: number
  unresolvedIssues: number
  issues: number
  signals: number
  insights: number
  activeIngestKeys: number
}

/** The dashboard's first figures for one organization. */
export async function getOrganizationOverview(
  db: DbOrTx,
  organizationId: string,
): Promise<OrganizationOverview> {
  const countWhere = async (
    table: typeof replaySessions | typeof issues | typeof signals | typeof insights,
    extra?: SQL,
  ) => {
    const [row] = await db
      .select({ n: count() })
      .from(table)
      .where(
        extra
          ? and(eq(table.organizationId, organizationId), extra)
          : eq(table.organizationId, organizationId),
      )
    return row?.n ?? 0
  }
  const [sessions, allIssues, unresolvedIssues, signalCount, insightCount, keys] = await Promise.all([
    // People's visits only: automated traffic is never counted (docs/hostile-input.md#automated-traffic).
    countWhere(replaySessions, isNull(replaySessions.automation)),
    countWhere(issues),
    countWhere(issues, eq(issues.status, 'unresolved')),
    countWhere(signals),
    countWhere(insights),
    db
      .select({ n: count() })
      .from(credentials)
      .where(
        and(
          eq(credentials.organizationId, organizationId),
          eq(credentials.kind, 'ingest'),
          isNull(credentials.revokedAt),
        ),
      ),
  ])
  return {
    sessions,
    issues: allIssues,
    unresolvedIssues,
    signals: signalCount,
    insights: insightCount,
    activeIngestKeys: keys[0]?.n ?? 0,
  }
}
