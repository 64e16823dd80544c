/**
 * What the user did next after a problem, on the same page (docs/design/analysis.md §4.5 "blocking", as
 * sharpened by issue 15): a problem blocked the user only when, within 30 s, they clicked the
 * same target again (a retry) or left the page — another page, a reload or the end of the
 * session — without doing anything else on it. Any other click or typing means they went on;
 * staying longer without acting tells nothing, so it does not count either. Nor does a page
 * that ends (or a click that repeats) within a second: too soon to be a reaction to the problem
 * — a scripted visit, a link that navigated, a double click.
 *
 * Detectors report some problems late (a dead click 7 s after the click, a rage burst once it
 * ends), so recent actions and page ends are kept and replayed when a problem is reported.
 * Everything is bounded: one pending watch per finding, a short ring of actions and page ends.
 */
import { formatOffset } from './timeline'

export const FOLLOW_UP_MS = 30_000
const MIN_REACTION_MS = 1_000
const MAX_RECENT_ACTIONS = 64
const MAX_ENDED_PAGES = 16
const MAX_LABEL_CHARS = 80

export interface UserAction {
  /** Page visit it happened on (PageRef.visit). */
  visit: number
  at: number
  /** Identity of the clicked element (selector and text); null for typing. */
  target: string | null
  /** How the reason names it, e.g. `clicked “Pay” (#pay)`. */
  label: string
}

export type FollowUp =
  | { kind: 'retried'; afterMs: number; label: string }
  | { kind: 'left'; afterMs: number; ended: 'page' | 'session' }
  | { kind: 'went_on'; afterMs: number; label: string }
  | { kind: 'stayed' }
  | { kind: 'too_soon'; afterMs: number }
  | { kind: 'recovered' }

interface Watch {
  visit: number
  since: number
  target: string | null
}

interface Decision {
  followUp: FollowUp
  visit: number
}

export function isBlocking(followUp: FollowUp): boolean {
  return followUp.kind === 'retried' || followUp.kind === 'left'
}

/** One sentence for the priority reason: why it did or did not block. */
export function followUpSentence(followUp: FollowUp): string {
  switch (followUp.kind) {
    case 'retried':
      return `the user tried again (${followUp.label} ${formatOffset(followUp.afterMs)} later)`
    case 'left':
      return followUp.ended === 'session'
        ? `the session ended ${formatOffset(followUp.afterMs)} later with nothing else done on the page`
        : `the user left the page ${formatOffset(followUp.afterMs)} later without doing anything else on it`
    case 'went_on':
      return `the user went on (${followUp.label} ${formatOffset(followUp.afterMs)} later)`
    case 'stayed':
      return `the user stayed on the page without leaving or retrying within ${FOLLOW_UP_MS / 1000} s`
    case 'too_soon':
      return `the page ended ${formatOffset(followUp.afterMs)} later, too soon to be a reaction to it`
    case 'recovered':
      return 'the same request succeeded later on the page'
  }
}

/** Clicking "the same target" means the same selector and text, even in a re-rendered element. */
export function targetIdentity(element: { selector: string; text: string }): string {
  return `${element.selector}|${element.text}`
}

export function clipLabel(label: string): string {
  return label.length > MAX_LABEL_CHARS ? `${label.slice(0, MAX_LABEL_CHARS - 1)}…` : label
}

export class FollowUps {
  private readonly pending = new Map<string, Watch>()
  private readonly decisions = new Map<string, Decision>()
  private readonly recent: UserAction[] = []
  private readonly ended = new Map<number, { at: number; how: 'page' | 'session' }>()

  /**
   * A problem (or another occurrence of it) happened: watch what follows `since` on that page.
   * `target` is the element whose click caused it, if any: clicking it again is a retry.
   */
  watch(id: string, watch: Watch): void {
    this.pending.set(id, watch)
    for (const action of this.recent) {
      if (!follows(watch, action)) continue
      this.resolve(id, watch, decideByAction(watch, action))
      return
    }
    const end = this.ended.get(watch.visit)
    if (end) this.resolve(id, watch, decideByEnd(watch, end.at, end.how))
  }

  action(done: UserAction): void {
    const action = { ...done, label: clipLabel(done.label) }
    if (this.recent.length >= MAX_RECENT_ACTIONS) this.recent.shift()
    this.recent.push(action)
    for (const [id, watch] of this.pending) {
      if (follows(watch, action)) this.resolve(id, watch, decideByAction(watch, action))
    }
  }

  pageEnded(visit: number, at: number, how: 'page' | 'session'): void {
    if (this.ended.size >= MAX_ENDED_PAGES) {
      const oldest = this.ended.keys().next().value
      if (oldest !== undefined) this.ended.delete(oldest)
    }
    this.ended.set(visit, { at, how })
    for (const [id, watch] of this.pending) {
      if (watch.visit === visit) this.resolve(id, watch, decideByEnd(watch, at, how))
    }
  }

  /** The failed request succeeded later on the same page: whatever the user did, it did not block. */
  recovered(id: string, visit: number): void {
    const watch = this.pending.get(id)
    const decision = this.decisions.get(id)
    if (watch?.visit !== visit && decision?.visit !== visit) return
    if (watch?.visit === visit) this.pending.delete(id)
    // A block on an earlier page stays: only what happened on this page is undone.
    if (decision && decision.visit !== visit && isBlocking(decision.followUp)) return
    this.decisions.set(id, { followUp: { kind: 'recovered' }, visit })
  }

  /** The deciding follow-up: the first that blocked, else the latest. */
  outcome(id: string): FollowUp {
    return this.decisions.get(id)?.followUp ?? { kind: 'stayed' }
  }

  forget(id: string): void {
    this.pending.delete(id)
    this.decisions.delete(id)
  }

  private resolve(id: string, watch: Watch, followUp: FollowUp): void {
    this.pending.delete(id)
    const previous = this.decisions.get(id)
    // Once an occurrence blocked, later ones cannot undo (or restate) it.
    if (previous && isBlocking(previous.followUp)) return
    this.decisions.set(id, { followUp, visit: watch.visit })
  }
}

/** A later action on the page; the same click repeated within a second is the same attempt. */
function follows(watch: Watch, action: UserAction): boolean {
  if (action.visit !== watch.visit || action.at <= watch.since) return false
  return !(isSameTarget(watch, action) && action.at - watch.since < MIN_REACTION_MS)
}

function isSameTarget(watch: Watch, action: UserAction): boolean {
  return watch.target !== null && action.target === watch.target
}

function decideByAction(watch: Watch, action: UserAction): FollowUp {
  const afterMs = action.at - watch.since
  if (afterMs > FOLLOW_UP_MS) return { kind: 'stayed' }
  if (isSameTarget(watch, action)) return { kind: 'retried', afterMs, label: action.label }
  return { kind: 'went_on', afterMs, label: action.label }
}

function decideByEnd(watch: Watch, at: number, how: 'page' | 'session'): FollowUp {
  const afterMs = Math.max(0, at - watch.since)
  if (afterMs > FOLLOW_UP_MS) return { kind: 'stayed' }
  if (afterMs < MIN_REACTION_MS) return { kind: 'too_soon', afterMs }
  return { kind: 'left', afterMs, ended: how }
}
