import type { IssuePriority } from '@/db/schema'
import type { MinifiedFrame, Symbolication } from './frames'
import type { FINDING_KINDS } from './kinds'
import type { SessionTrail } from './trail'

/**
 * The analyser's contract with the rest of the service. It reads one session's rrweb events
 * in order (streamed batch by batch, never the whole session at once) and returns findings
 * grouped per fingerprint, a compact digest for signal matching and a few summary figures.
 * See docs/design/analysis.md for the formats, detectors, fingerprints and priorities.
 */

/** An rrweb event as stored: the three fields every event has, the rest opaque. */
export interface RrwebEvent {
  type: number
  timestamp: number
  data: unknown
  [key: string]: unknown
}

export type FindingKind = (typeof FINDING_KINDS)[number]

/** A clicked element resolved through the snapshot tree (docs/design/analysis.md §1.5). */
export interface ElementDescriptor {
  tag: string
  id: string | null
  classes: string[]
  role: string | null
  ariaLabel: string | null
  testId: string | null
  name: string | null
  type: string | null
  href: string | null
  /** Visible text, whitespace collapsed, at most 100 characters. */
  text: string
  /** Sentry-style selector: tag#id.class[role][aria-label][data-testid]... */
  selector: string
}

/** One problem of one session: all occurrences of one fingerprint collapsed (§4.2.3). */
export interface Finding {
  kind: FindingKind
  /** sha256 hex of "v1|kind|parts..." (§4.4); equal across sessions for the same problem. */
  fingerprint: string
  /** Deterministic title (§4.6), e.g. `PUT /api/profile returns 503 on /settings`. */
  title: string
  description: string
  /** Base priority with the per-session adjustments (critical path, blocking, noise); breadth is applied per issue. */
  priority: IssuePriority
  /** Why it got that priority, one line (priority-reason.ts); names elements, so replay-derived. */
  priorityReason: string
  /** Page URL and its path pattern at the first occurrence. */
  url: string
  pathPattern: string
  /** Epoch milliseconds of the first and last occurrence in this session. */
  firstTimestamp: number
  lastTimestamp: number
  occurrences: number
  /** The click that triggered it (error-after-click, or the clicked element of rage/dead clicks). */
  trigger: { element: ElementDescriptor; timestamp: number; url: string } | null
  /** Message, stack, request, click positions...: what a developer needs to see. */
  evidence: Record<string, unknown>
  /** Numbered steps from this session's own timeline up to the first occurrence (§4.6). */
  stepsToReplicate: string
}

/** What signals are matched against: small, readable, input values masked. */
export interface SessionDigest {
  durationMs: number
  pages: { url: string; pathPattern: string; at: number }[]
  clicks: { text: string; selector: string; url: string; at: number }[]
  inputs: { field: string; length: number; url: string; at: number }[]
  errors: { message: string; url: string; at: number }[]
  networkFailures: { method: string; url: string; status: number; at: number }[]
  rageClicks: { text: string; selector: string; url: string; at: number }[]
  deadClicks: { text: string; selector: string; url: string; at: number }[]
}

export interface SessionSummary {
  durationMs: number
  pageCount: number
  errorCount: number
  rageClickCount: number
  deadClickCount: number
}

export interface AnalysisResult {
  findings: Finding[]
  digest: SessionDigest
  summary: SessionSummary
  eventCount: number
  /** What happened in the session, entry by entry, bounded (trail.ts). */
  trail: SessionTrail
  /**
   * Distinct positions named by the stacks of the session's errors, top frames first, at most
   * MAX_ERROR_FRAMES: what symbolication looks up before a second pass. Absent from results
   * memoized before source maps existed.
   */
  errorFrames?: MinifiedFrame[]
  /** The first MAX_ERROR_STACKS distinct error stacks by their positions, top first, for naming frames by their callers. */
  errorStacks?: MinifiedFrame[][]
}

export interface AnalyzerOptions {
  /** URLs (prefixes) never reported as failed requests: the service's own ingest endpoint. */
  ignoreRequestUrls?: string[]
  /**
   * Original positions of stack frames (docs/source-maps.md). With them, js_error findings are
   * fingerprinted, described and shown by the original frames, and carry them in
   * `evidence.frames`; without, nothing changes.
   */
  symbolication?: Symbolication
  /**
   * Epoch ms no event is taken to be later than: the server's receipt of the session's last
   * batch plus the allowed clock skew (docs/hostile-input.md#times-come-from-the-server). Later
   * timestamps are read as this one, so no finding, trail entry or figure lies in the future.
   */
  latestAt?: number
}

/** Push events in order, then finish once. Memory does not grow with session length. */
export interface Analyzer {
  /**
   * The events pushed next were recorded in window (tab) `id` of the visit: each tab keeps its
   * own document, page and clicks (tabs.ts). A one-window session analyses as without it.
   */
  window?(id: string): void
  push(event: RrwebEvent): void
  finish(): AnalysisResult
}
