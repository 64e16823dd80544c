import { sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'

export interface IntervalFigures {
  sessions: number
  users: number
  medianDurationMs: number | null
  /** Sessions with at least one: JavaScript error, rage click, dead click, failed request. */
  friction: { errors: number; rageClicks: number; deadClicks: number; networkFailures: number }
  topPages: { path: string; sessions: number }[]
  topIssues: { id: string; title: string; sessions: number }[]
  newIssues: { id: string; title: string }[]
  /** Sessions per (issue kind, page pattern): what an insight-sourced issue is decided on. */
  frictionByPage: { kind: string; path: string; sessions: number; issueIds: string[] }[]
}

type Row = Record<string, unknown>
const rowsOf = (result: unknown): Row[] =>
  Array.isArray(result) ? (result as Row[]) : ((result as { rows?: Row[] }).rows ?? [])
const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value))

/** The figures of one organization over [start, end), from processed sessions and their issues. */
export async function intervalFigures(
  db: DbOrTx,
  organizationId: string,
  start: Date,
  end: Date,
): Promise<IntervalFigures> {
  const from = start.toISOString()
  const to = end.toISOString()
  const inInterval = sql`organization_id = ${organizationId} and created_at >= ${from}::timestamptz and created_at < ${to}::timestamptz`
  // People's visits only: automated traffic is never counted (docs/hostile-input.md#automated-traffic).
  // Issue figures need no filter: an automated session links to no issue.
  const people = sql`automation is null`
  const [totals] = rowsOf(
    await db.execute(sql`
      select count(*) as sessions,
             count(distinct coalesce(user_id, anonymous_id)) as users,
             percentile_cont(0.5) within group (order by duration_ms) as median,
             count(*) filter (where error_count > 0) as errors,
             count(*) filter (where rage_click_count > 0) as rage,
             count(*) filter (where jsonb_array_length(coalesce(digest->'deadClicks', '[]'::jsonb)) > 0) as dead,
             count(*) filter (where jsonb_array_length(coalesce(digest->'networkFailures', '[]'::jsonb)) > 0) as network
      from replay_sessions where ${inInterval} and ${people}`),
  )
  const topPages = rowsOf(
    await db.execute(sql`
      select page->>'pathPattern' as path, count(distinct s.id) as sessions
      from replay_sessions s, jsonb_array_elements(coalesce(s.digest->'pages', '[]'::jsonb)) page
      where s.organization_id = ${organizationId} and s.created_at >= ${from}::timestamptz and s.created_at < ${to}::timestamptz
        and s.automation is null
      group by 1 order by 2 desc, 1 limit 5`),
  )
  const topIssues = rowsOf(
    await db.execute(sql`
      select i.id, i.title, count(*) as sessions
      from issue_sessions l join issues i on i.id = l.issue_id
      where l.organization_id = ${organizationId} and l.created_at >= ${from}::timestamptz and l.created_at < ${to}::timestamptz
      group by i.id, i.title order by 3 desc, 2 limit 5`),
  )
  const newIssues = rowsOf(
    await db.execute(sql`
      select id, title from issues where ${inInterval} and source_type = 'session_analysis'
      order by session_count desc, created_at limit 10`),
  )
  const byPage = rowsOf(
    await db.execute(sql`
      select i.kind, coalesce(i.evidence->>'pathPattern', '/') as path, count(distinct l.session_id) as sessions,
             json_agg(distinct i.id::text) as issue_ids
      from issue_sessions l join issues i on i.id = l.issue_id
      where l.organization_id = ${organizationId} and l.created_at >= ${from}::timestamptz and l.created_at < ${to}::timestamptz
        and i.source_type = 'session_analysis'
      group by 1, 2`),
  )
  return {
    sessions: num(totals?.sessions),
    users: num(totals?.users),
    medianDurationMs:
      totals?.median === null || totals?.median === undefined ? null : Math.round(Number(totals.median)),
    friction: {
      errors: num(totals?.errors),
      rageClicks: num(totals?.rage),
      deadClicks: num(totals?.dead),
      networkFailures: num(totals?.network),
    },
    topPages: topPages.map((r) => ({ path: String(r.path), sessions: num(r.sessions) })),
    topIssues: topIssues.map((r) => ({
      id: String(r.id),
      title: String(r.title),
      sessions: num(r.sessions),
    })),
    newIssues: newIssues.map((r) => ({ id: String(r.id), title: String(r.title) })),
    frictionByPage: byPage.map((r) => ({
      kind: String(r.kind),
      path: String(r.path),
      sessions: num(r.sessions),
      issueIds: Array.isArray(r.issue_ids) ? r.issue_ids.map(String) : [],
    })),
  }
}
