/**
 * State shared by the detectors of one session. Everything here is bounded: the document
 * model follows the live DOM, the rings and the digest are capped, and findings are one per
 * fingerprint.
 */
import type { DigestBuilder } from './digest'
import type { DocumentModel } from './dom/document'
import type { ClickTarget } from './dom/target'
import type { FindingStore } from './findings'
import type { PageRef, PageTracker } from './page'
import type { Problem } from './problem'
import type { FailureLog } from './reported-failures'
import type { ResponseLog } from './responses'
import type { Timeline } from './timeline'
import type { TrailTarget } from './trail'
import type { TrailRecorder } from './trail-recorder'
import type { AnalyzerOptions, ElementDescriptor } from './types'

export interface ClickRecord {
  seq: number
  /** Where responses start to count: the mouse-down of the same press when there is one. */
  startSeq: number
  at: number
  x: number | null
  y: number | null
  target: ClickTarget | null
  element: ElementDescriptor
  /** Identity of the resolved element within its document. */
  key: string
  stable: string
  /** The element as the session trail names it, built on the first call (most clicks never need it). */
  trailTarget: () => TrailTarget
  page: PageRef
  /** A js_error followed within 1 s: the error is the report, not a dead click (§4.3). */
  errored: boolean
}

const MAX_CLICKS = 32

/** Recent clicks, for linking errors and requests to the click that caused them (§4.3). */
export class ClickLog {
  private readonly clicks: ClickRecord[] = []

  push(click: ClickRecord): void {
    if (this.clicks.length >= MAX_CLICKS) this.clicks.shift()
    this.clicks.push(click)
  }

  last(): ClickRecord | undefined {
    return this.clicks[this.clicks.length - 1]
  }

  /** The latest click at most `windowMs` before `at`. */
  before(at: number, windowMs: number): ClickRecord | null {
    for (let i = this.clicks.length - 1; i >= 0; i--) {
      const click = this.clicks[i]!
      if (click.at <= at) return at - click.at <= windowMs ? click : null
    }
    return null
  }

  /** The click that started a request: request start ≤ 1 s after it, failure ≤ 10 s after it. */
  startedRequest(startedAt: number, failedAt: number): ClickRecord | null {
    for (let i = this.clicks.length - 1; i >= 0; i--) {
      const click = this.clicks[i]!
      // Timing entries and Date.now() can disagree by a few milliseconds.
      if (startedAt < click.at - 50) continue
      if (startedAt - click.at > 1000 || failedAt - click.at > 10_000) return null
      return click
    }
    return null
  }
}

export interface Context {
  readonly options: AnalyzerOptions
  // The tab's own state (tabs.ts): the analyser swaps these when a batch of another window comes.
  doc: DocumentModel
  page: PageTracker
  responses: ResponseLog
  clicks: ClickLog
  readonly timeline: Timeline
  readonly store: FindingStore
  readonly digest: DigestBuilder
  readonly trail: TrailRecorder
  /** Failed requests a console error may report (one failure, one issue). */
  readonly failures: FailureLog
  /** Epoch ms of the first event. */
  sessionStart: number
  /** Adds an occurrence to the store with its steps; false when it was merged away. */
  report(problem: Problem): boolean
}
