/**
 * The session trail: what happened in one session, entry by entry, recorded by the same
 * analysis pass that finds issues (docs/agent-timeline.md). It is what an agent reads to see
 * what the user did around a problem, and what a reproduction test is built from. Every
 * string in it comes from the customer's page (attacker-written) and is cut to the limits
 * below when recorded, so a stored trail has a ceiling whatever the session held.
 */

/** Per-session and per-field ceilings of a recorded trail. */
export const TRAIL_LIMITS = {
  /** Entries kept per session; later ones are dropped and the trail is marked truncated. */
  entries: 2_000,
  /** A console message, an error message, a custom event's tag. */
  message: 1_000,
  /** An error's stack trace. */
  stack: 4_000,
  /** A page or request URL. */
  url: 2_048,
  /** A typed value the recorder did not mask. */
  value: 200,
  /** A custom event's payload, as JSON text. */
  payload: 2_000,
  /** Element text, labels, names and selectors. */
  label: 200,
} as const

/** Ends every text that was cut, so a reader (or a model) knows it saw only the start. */
export const CUT_MARKER = ' …[truncated]'

/** `text` cut to `max` characters including the marker; never ends inside a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text
  let end = Math.max(0, max - CUT_MARKER.length)
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${text.slice(0, end)}${CUT_MARKER}`
}

/** The element a click or an input went to, resolved through the recorded DOM. */
export interface TrailTarget {
  tag: string
  /** A CSS selector that should find the element again (ids, test ids, stable classes). */
  selector: string
  /** The explicit `role` attribute, or the implicit ARIA role of the tag (button, link, textbox...). */
  role: string | null
  /** The accessible name: aria-label, the field's label, or the visible text. */
  name: string | null
  /** Visible text, whitespace collapsed. */
  text: string
  testId: string | null
  id: string | null
  /** The `type` attribute of inputs and buttons. */
  type: string | null
  href: string | null
}

interface TrailBase {
  /** Epoch milliseconds (the browser's clock, like every rrweb timestamp). */
  at: number
  /** The page the user was on. */
  pageUrl: string
}

export type TrailEntry = TrailBase &
  (
    | { kind: 'navigation'; url: string; change: 'load' | 'navigation' }
    | { kind: 'click'; target: TrailTarget; count: number }
    | {
        kind: 'input'
        target: TrailTarget
        control: 'text' | 'toggle' | 'select' | 'other'
        /** What was typed, when the recorder did not mask it; null when masked or not text. */
        value: string | null
        masked: boolean
        length: number
        checked: boolean | null
      }
    | { kind: 'console'; level: string; message: string }
    | {
        kind: 'error'
        message: string
        stack: string | null
        /**
         * The stack in original frames (`at fn (src/file.ts:12:5)` lines), when the session's
         * release had source maps for it (docs/source-maps.md); absent otherwise.
         */
        originalStack?: string | null
        source: 'uncaught' | 'unhandled_rejection' | 'console' | 'custom'
      }
    | {
        kind: 'request'
        method: string
        url: string
        /** HTTP status; null when the request failed without an answer (network error, CORS). */
        status: number | null
        durationMs: number | null
        failed: boolean
      }
    | { kind: 'rage_click'; target: TrailTarget; count: number }
    | { kind: 'dead_click'; target: TrailTarget }
    | { kind: 'custom'; tag: string; payload: string | null }
  )

export type TrailKind = TrailEntry['kind']

export const TRAIL_KINDS = [
  'navigation',
  'click',
  'input',
  'console',
  'error',
  'request',
  'rage_click',
  'dead_click',
  'custom',
] as const satisfies readonly TrailKind[]

/** A session's trail as the analysis pass returns it. */
export interface SessionTrail {
  entries: TrailEntry[]
  /** The session had more than TRAIL_LIMITS.entries entries: the last ones are missing. */
  truncated: boolean
}
