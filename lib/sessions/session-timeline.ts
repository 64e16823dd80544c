import { z } from 'zod'
import { DIGEST_LIMIT } from '@/lib/analysis/digest'
import { parseUrl } from '@/lib/analysis/url'
import type { SessionIssue } from './session-issues'
import type { SessionRecord } from './views'

/** The kinds the replay player marks. */
export type TimelineKind = 'page' | 'click' | 'error' | 'network' | 'rage' | 'dead' | 'issue'

export interface TimelineEntry {
  /** Epoch milliseconds. */
  at: number
  kind: TimelineKind
  label: string
}

export interface SessionTimeline {
  entries: TimelineEntry[]
  /** Some list reached the digest's cap: later clicks or errors of a long session are not shown. */
  truncated: boolean
  /** From an earlier analysis pass: more was recorded since, or the latest pass did not finish. */
  earlierPass: boolean
}

const At = z.number().finite()
const Place = { url: z.string(), at: At }
const Clicked = z.object({ text: z.string(), selector: z.string(), ...Place })
// The stored digest is JSON written by an earlier pass (maybe by an older version): read it
// leniently; one without the expected shape gives no timeline.
const StoredDigest = z.object({
  pages: z.array(z.object(Place)),
  clicks: z.array(Clicked),
  errors: z.array(z.object({ message: z.string(), ...Place })),
  networkFailures: z.array(z.object({ method: z.string(), status: z.number(), ...Place })),
  rageClicks: z.array(Clicked),
  deadClicks: z.array(Clicked),
})
type TimelineDigest = z.infer<typeof StoredDigest>

const REPEAT_MS = 1000

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** Path and query: the host is the same on almost every row and only takes room. */
export function shortUrl(url: string): string {
  const parsed = parseUrl(url)
  return parsed ? `${parsed.pathname}${parsed.search}` : url
}

function element(entry: z.infer<typeof Clicked>): string {
  return entry.text ? `“${clip(entry.text, 60)}”` : clip(entry.selector, 60)
}

/** Repeated clicks on one element within a second read as one row, like the steps to replicate. */
function clickEntries(clicks: TimelineDigest['clicks']): TimelineEntry[] {
  const rows: { at: number; last: number; key: string; what: string; count: number }[] = []
  for (const click of clicks) {
    const key = `${click.selector}\n${click.text}`
    const previous = rows[rows.length - 1]
    if (previous && previous.key === key && click.at - previous.last <= REPEAT_MS) {
      previous.count++
      previous.last = click.at
    } else rows.push({ at: click.at, last: click.at, key, what: element(click), count: 1 })
  }
  return rows.map((row) => ({
    at: row.at,
    kind: 'click',
    label: `Clicked ${row.what}${row.count > 1 ? ` ${row.count} times` : ''}`,
  }))
}

/** The timeline from an analysis digest and the session's issues, in time order. */
function timelineFromDigest(digest: TimelineDigest, issues: SessionIssue[] = []): TimelineEntry[] {
  const entries: TimelineEntry[] = [
    ...digest.pages.map(
      (page): TimelineEntry => ({ at: page.at, kind: 'page', label: `Opened ${shortUrl(page.url)}` }),
    ),
    ...clickEntries(digest.clicks),
    ...digest.errors.map(
      (error): TimelineEntry => ({ at: error.at, kind: 'error', label: clip(error.message, 140) }),
    ),
    ...digest.networkFailures.map(
      (request): TimelineEntry => ({
        at: request.at,
        kind: 'network',
        label: `${request.method} ${clip(shortUrl(request.url), 80)} ${request.status === 0 ? 'got no response' : `answered ${request.status}`}`,
      }),
    ),
    ...digest.rageClicks.map(
      (click): TimelineEntry => ({ at: click.at, kind: 'rage', label: `Rage click on ${element(click)}` }),
    ),
    ...digest.deadClicks.map(
      (click): TimelineEntry => ({
        at: click.at,
        kind: 'dead',
        label: `Dead click on ${element(click)}: nothing happened`,
      }),
    ),
    ...issues.map(
      (issue): TimelineEntry => ({
        at: issue.firstOccurrenceAt.getTime(),
        kind: 'issue',
        label: `Issue: ${clip(issue.title, 140)}`,
      }),
    ),
  ]
  // Array.prototype.sort is stable: at equal times the order above (page, click, error...) holds.
  return entries.sort((a, b) => a.at - b.at)
}

function isTruncated(digest: TimelineDigest): boolean {
  const { pages, clicks, errors, networkFailures, rageClicks, deadClicks } = digest
  return [pages, clicks, errors, networkFailures, rageClicks, deadClicks].some(
    (list) => list.length >= DIGEST_LIMIT,
  )
}

/**
 * What happened in a session, for the list beside the replay, from the digest its last
 * analysis pass stored; null when there is none yet (the session waits for or is in its first
 * pass, or that pass failed). Never analyses here: analysis runs in the background, in a
 * worker within its budget, not in a page request.
 */
export function sessionTimeline(
  session: Pick<SessionRecord, 'status' | 'digest'>,
  issues: SessionIssue[],
): SessionTimeline | null {
  const stored = StoredDigest.safeParse(session.digest)
  if (!stored.success) return null
  return {
    entries: timelineFromDigest(stored.data, issues),
    truncated: isTruncated(stored.data),
    earlierPass: session.status !== 'processed',
  }
}
