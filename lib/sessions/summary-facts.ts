import { and, asc, eq, inArray, or, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { sessionTimelineEntries } from '@/db/schema'
import type { TrailEntry, TrailKind } from '@/lib/analysis/trail'

/** One line of what happened, as the summary needs it: short, already cut. */
export interface SummaryFact {
  kind: TrailKind
  /** A URL, an element's name or text, or an error message; at most FACT_LABEL_CHARS. */
  label: string
  method: string | null
  status: number | null
}

const FACT_LABEL_CHARS = 200
/** The console's own line for an uncaught error, which the trail also holds as an error entry. */
const UNCAUGHT = 'Uncaught '

const FACT_KINDS: TrailKind[] = [
  'navigation',
  'click',
  'input',
  'error',
  'request',
  'rage_click',
  'dead_click',
]

function targetLabel(target: { name: string | null; text: string; selector: string }): string {
  return (target.name || target.text || target.selector).slice(0, FACT_LABEL_CHARS)
}

/**
 * The facts of a stored trail, read in one query that leaves out what a summary does not use
 * (stacks, payloads, successful requests, console messages other than errors): at most
 * TRAIL_LIMITS.entries short rows. A console.error is an error fact, as the session's error
 * figure counts it (lib/sessions/session-figures.ts).
 */
export async function trailFacts(
  db: DbOrTx,
  organizationId: string,
  sessionId: string,
): Promise<SummaryFact[]> {
  const t = sessionTimelineEntries
  const consoleError = sql`(${t.kind} = 'console' and ${t.entry} ->> 'level' = 'error' and ${t.entry} ->> 'message' not like ${`${UNCAUGHT}%`})`
  const label = sql<string>`left(case
    when ${t.kind} in ('navigation', 'request') then ${t.entry} ->> 'url'
    when ${t.kind} in ('error', 'console') then ${t.entry} ->> 'message'
    else coalesce(nullif(${t.entry} -> 'target' ->> 'name', ''), nullif(${t.entry} -> 'target' ->> 'text', ''), ${t.entry} -> 'target' ->> 'selector', '')
  end, ${FACT_LABEL_CHARS})`
  const rows = await db
    .select({
      kind: t.kind,
      label,
      method: sql<string | null>`left(${t.entry} ->> 'method', 12)`,
      status: sql<string | null>`${t.entry} ->> 'status'`,
    })
    .from(t)
    .where(
      and(
        eq(t.sessionId, sessionId),
        eq(t.organizationId, organizationId),
        or(inArray(t.kind, FACT_KINDS), consoleError),
        sql`(${t.kind} <> 'request' or ${t.entry} ->> 'failed' = 'true')`,
      ),
    )
    .orderBy(asc(t.position))
  return rows.map((row) => ({
    kind: row.kind === 'console' ? 'error' : row.kind,
    label: row.label ?? '',
    method: row.method,
    status: row.status !== null && /^\d{1,3}$/.test(row.status) ? Number(row.status) : null,
  }))
}

/** The same facts from trail entries in memory (the digest's, for sessions without a stored trail). */
export function entryFacts(entries: TrailEntry[]): SummaryFact[] {
  const facts: SummaryFact[] = []
  for (const entry of entries) {
    const fact = { kind: entry.kind, method: null, status: null }
    switch (entry.kind) {
      case 'navigation':
        facts.push({ ...fact, label: entry.url.slice(0, FACT_LABEL_CHARS) })
        break
      case 'click':
      case 'input':
      case 'rage_click':
      case 'dead_click':
        facts.push({ ...fact, label: targetLabel(entry.target) })
        break
      case 'error':
        facts.push({ ...fact, label: entry.message.slice(0, FACT_LABEL_CHARS) })
        break
      case 'console':
        if (entry.level === 'error' && !entry.message.startsWith(UNCAUGHT))
          facts.push({ ...fact, kind: 'error', label: entry.message.slice(0, FACT_LABEL_CHARS) })
        break
      case 'request':
        if (entry.failed)
          facts.push({
            kind: 'request',
            label: entry.url.slice(0, FACT_LABEL_CHARS),
            method: entry.method,
            status: entry.status,
          })
        break
      default:
        break
    }
  }
  return facts
}
