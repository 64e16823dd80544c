/**
 * Where in a session's trail the issue happened, and which of the user's actions led there:
 * the entry that records the failure (the error, the request, the dead or rage click) nearest
 * to the first occurrence in the session, and the action that triggered it.
 */
import type { TrailEntry, TrailTarget } from '@/lib/analysis/trail'
import { withoutCutMarker } from './code'
import { type Failure, pathOf } from './failure'

/** How far from the recorded moment a matching entry may be (clocks and merging differ). */
const NEAR_MS = 10_000
/** The clicks of one rage burst are one attempt: replaying one is enough. */
const BURST_GAP_MS = 1_000

export type Action = Extract<TrailEntry, { kind: 'navigation' | 'click' | 'input' }>

export interface Moment {
  /**
   * The user's actions up to the one after which the failure happens, oldest first; that one
   * is last. Empty when the failure happened while the first page loaded.
   */
  actions: Action[]
  /** The failure's own entry was found in the trail (else the trail is cut at the recorded time). */
  found: boolean
}

const isAction = (entry: TrailEntry): entry is Action =>
  entry.kind === 'navigation' || entry.kind === 'click' || entry.kind === 'input'

function sameMessage(recorded: string, expected: string): boolean {
  const a = withoutCutMarker(recorded)
  const key = expected.slice(0, 120)
  return a.includes(key) || (a.length >= 8 && expected.includes(a))
}

function matches(entry: TrailEntry, failure: Failure): boolean {
  switch (failure.kind) {
    case 'error':
      if (entry.kind === 'error') return sameMessage(entry.message, failure.message)
      return (
        failure.console &&
        entry.kind === 'console' &&
        entry.level === 'error' &&
        sameMessage(entry.message, failure.message)
      )
    case 'request':
      return (
        entry.kind === 'request' &&
        entry.method.toUpperCase() === failure.method &&
        pathOf(withoutCutMarker(entry.url), entry.pageUrl) === failure.path
      )
    case 'click':
      // The trail's selector is built for finding the element again, not the evidence's
      // Sentry-style one: the entry is matched by kind and time (both use the click's time).
      return entry.kind === (failure.rage ? 'rage_click' : 'dead_click')
  }
}

/** Index of the matching entry nearest to `at` (within NEAR_MS), or -1. */
function failureIndex(trail: readonly TrailEntry[], failure: Failure, at: number): number {
  let best = -1
  let bestDistance = Number.POSITIVE_INFINITY
  trail.forEach((entry, index) => {
    const distance = Math.abs(entry.at - at)
    if (distance <= NEAR_MS && distance < bestDistance && matches(entry, failure)) {
      best = index
      bestDistance = distance
    }
  })
  return best
}

const sameTarget = (a: TrailTarget, b: TrailTarget) => a.selector === b.selector && a.text === b.text

/**
 * The click a dead or rage click finding is about: the recorded click on its element just
 * before (or, when the finding was written first, just after) the finding's entry.
 */
function clickIndex(trail: readonly TrailEntry[], index: number, target: TrailTarget): number {
  const at = trail[index]!.at
  for (let i = index - 1; i >= 0 && at - trail[i]!.at <= NEAR_MS; i--) {
    const entry = trail[i]!
    if (entry.kind === 'click' && sameTarget(entry.target, target)) return i
  }
  for (let i = index + 1; i < trail.length && trail[i]!.at - at <= NEAR_MS; i++) {
    const entry = trail[i]!
    if (entry.kind === 'click' && sameTarget(entry.target, target)) return i
  }
  return -1
}

function clickMoment(trail: readonly TrailEntry[], index: number): Moment {
  const entry = trail[index]!
  if (entry.kind !== 'dead_click' && entry.kind !== 'rage_click') return errorMoment(trail, index, true)
  const target = entry.target
  const click = clickIndex(trail, index, target)
  const trigger: Action =
    click >= 0
      ? (trail[click] as Action)
      : { kind: 'click', at: entry.at, pageUrl: entry.pageUrl, target, count: 1 }
  const before = trail.slice(0, click >= 0 ? click : index).filter(isAction)
  // Earlier clicks of the same burst would only repeat the trigger.
  let next = trigger.at
  for (let last = before.at(-1); last?.kind === 'click'; last = before.at(-1)) {
    if (!sameTarget(last.target, target) || next - last.at > BURST_GAP_MS) break
    next = last.at
    before.pop()
  }
  return { actions: [...before, trigger], found: true }
}

function errorMoment(trail: readonly TrailEntry[], end: number, found: boolean): Moment {
  return { actions: trail.slice(0, end).filter(isAction), found }
}

/** The failure in `trail` (entries up to a little after `failingAt`, oldest first). */
export function locateMoment(trail: readonly TrailEntry[], failure: Failure, failingAt: number): Moment {
  const index = failureIndex(trail, failure, failingAt)
  if (index >= 0)
    return failure.kind === 'click' ? clickMoment(trail, index) : errorMoment(trail, index, true)
  // Not in the trail: replay what the user did up to the recorded moment.
  const end = trail.findIndex((entry) => entry.at > failingAt)
  return errorMoment(trail, end < 0 ? trail.length : end, false)
}
