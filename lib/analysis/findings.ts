/**
 * Findings of one session, one per fingerprint (docs/design/analysis.md §4.2.3, §4.3 session-level merge):
 * occurrences are counted, a rage click supersedes a dead click on the same target within a
 * minute, and the blocking adjustment of §4.5 follows what the user did next (follow-up.ts).
 */
import { fingerprint } from './fingerprint'
import { FollowUps, followUpSentence, isBlocking, targetIdentity } from './follow-up'
import type { PriorityInput } from './priority'
import { explainPriority } from './priority-reason'
import type { Problem } from './problem'
import { occurrenceSentence } from './text'
import type { Finding } from './types'

const SUPERSEDE_MS = 60_000
/** Console messages kept on a failed request that the page itself reported (reported-failures.ts). */
const MAX_REPORTS = 3
const MAX_TIMES = 50
// Messages that defeat normalisation could otherwise make every occurrence a new finding.
export const MAX_FINDINGS = 500

export type Occurrence = Pick<Problem, 'at' | 'until' | 'page' | 'trigger'>

interface Entry {
  finding: Finding
  summary: string
  priority: PriorityInput
  successKey: string | undefined
  lastVisit: number
  /** Occurrence times of click findings, for superseding; capped. */
  times: number[]
}

export class FindingStore {
  private readonly entries = new Map<string, Entry>()
  private readonly rageTimes = new Map<string, number[]>()
  private readonly bySuccessKey = new Map<string, Entry[]>()
  readonly followUps = new FollowUps()

  /** Adds an occurrence; returns false when it was merged away (superseded dead click). */
  add(problem: Problem, steps: () => string): boolean {
    const targetKey = problem.parts.join('|')
    if (problem.kind === 'dead_click') {
      const rages = this.rageTimes.get(targetKey)
      if (rages?.some((at) => Math.abs(at - problem.at) <= SUPERSEDE_MS)) return false
    }
    if (problem.kind === 'rage_click') this.noteRage(targetKey, problem)
    const id = fingerprint(problem.kind, problem.parts)
    const existing = this.entries.get(id)
    if (existing) {
      this.bump(existing, problem)
      return true
    }
    if (this.entries.size >= MAX_FINDINGS) return false
    const entry: Entry = {
      finding: {
        kind: problem.kind,
        fingerprint: id,
        title: problem.title,
        description: '',
        priority: problem.priority.base,
        priorityReason: '',
        url: problem.page.url,
        pathPattern: problem.page.pathPattern,
        firstTimestamp: problem.at,
        lastTimestamp: problem.at,
        occurrences: 1,
        trigger: problem.trigger,
        evidence: problem.evidence,
        stepsToReplicate: steps(),
      },
      summary: problem.summary,
      priority: problem.priority,
      successKey: problem.successKey,
      lastVisit: problem.page.visit,
      times: [],
    }
    this.entries.set(id, entry)
    if (problem.successKey) {
      const list = this.bySuccessKey.get(problem.successKey) ?? []
      list.push(entry)
      this.bySuccessKey.set(problem.successKey, list)
    }
    this.touch(entry, problem)
    return true
  }

  /**
   * Another occurrence of a finding this session already has, without building its problem
   * (titles, steps) again; false when the fingerprint is new. Not for click kinds, which
   * supersede each other.
   */
  repeat(
    kind: 'js_error' | 'console_error' | 'network_error',
    parts: string[],
    occurrence: Occurrence,
  ): boolean {
    const existing = this.entries.get(fingerprint(kind, parts))
    if (!existing) return false
    this.bump(existing, { ...occurrence, kind })
    return true
  }

  private bump(entry: Entry, occurrence: Occurrence & { kind: Problem['kind'] }): void {
    const finding = entry.finding
    finding.occurrences++
    finding.firstTimestamp = Math.min(finding.firstTimestamp, occurrence.at)
    finding.lastTimestamp = Math.max(finding.lastTimestamp, occurrence.at)
    finding.trigger ??= occurrence.trigger
    this.touch(entry, occurrence)
  }

  private touch(entry: Entry, problem: Occurrence & { kind: Problem['kind'] }): void {
    entry.lastVisit = problem.page.visit
    this.followUps.watch(entry.finding.fingerprint, {
      visit: problem.page.visit,
      since: problem.until ?? problem.at,
      target: problem.trigger ? targetIdentity(problem.trigger.element) : null,
    })
    if (problem.kind === 'dead_click' && entry.times.length < MAX_TIMES) entry.times.push(problem.at)
  }

  /**
   * The page logged a console error reporting this failed request: the message becomes the
   * request's evidence instead of an issue of its own. False when the finding is gone.
   */
  reportedBy(id: string, message: string): boolean {
    const entry = this.entries.get(id)
    if (!entry) return false
    const finding = entry.finding
    const reports = Array.isArray(finding.evidence.consoleErrors)
      ? (finding.evidence.consoleErrors as string[])
      : []
    if (reports.length < MAX_REPORTS && !reports.includes(message))
      finding.evidence = { ...finding.evidence, consoleErrors: [...reports, message] }
    return true
  }

  /** A rage click removes dead-click occurrences on the same target within a minute of it. */
  private noteRage(targetKey: string, problem: Problem): void {
    const times = this.rageTimes.get(targetKey) ?? []
    if (times.length === 0 && this.rageTimes.size >= MAX_FINDINGS) return
    if (times.length >= MAX_TIMES) times.shift()
    times.push(problem.at)
    this.rageTimes.set(targetKey, times)
    const deadId = fingerprint('dead_click', problem.parts)
    const dead = this.entries.get(deadId)
    if (!dead) return
    const kept = dead.times.filter((at) => Math.abs(at - problem.at) > SUPERSEDE_MS)
    const removed = dead.times.length - kept.length
    if (removed === 0) return
    dead.finding.occurrences -= removed
    dead.times = kept
    if (dead.finding.occurrences <= 0) {
      this.entries.delete(deadId)
      this.followUps.forget(deadId)
      return
    }
    // Past the cap of recorded times the bounds stay approximate, which only affects text.
    if (kept.length > 0) {
      dead.finding.firstTimestamp = Math.min(...kept)
      dead.finding.lastTimestamp = Math.max(...kept)
    }
  }

  get hasSuccessKeys(): boolean {
    return this.bySuccessKey.size > 0
  }

  /** The same request succeeded later on the same page: the earlier failure did not block. */
  success(successKey: string, visit: number): void {
    for (const entry of this.bySuccessKey.get(successKey) ?? []) {
      if (entry.lastVisit === visit) this.followUps.recovered(entry.finding.fingerprint, visit)
    }
  }

  /** The page ended: another page, a reload, or (`session`) the end of the recording. */
  pageEnded(visit: number, at: number, how: 'page' | 'session'): void {
    this.followUps.pageEnded(visit, at, how)
  }

  results(sessionStart: number): Finding[] {
    const findings: Finding[] = []
    for (const entry of this.entries.values()) {
      const finding = entry.finding
      const followUp = this.followUps.outcome(finding.fingerprint)
      const explained = explainPriority(finding.kind, entry.priority, followUp)
      finding.priority = explained.priority
      finding.priorityReason = explained.reason
      finding.evidence = {
        ...finding.evidence,
        blocking: isBlocking(followUp),
        retried: followUp.kind === 'retried',
        followUp: followUp.kind,
        // The priority reason's own words, so the evidence never tells another story (issue 34).
        followUpSentence: followUpSentence(followUp),
      }
      const reports = finding.evidence.consoleErrors
      const reported =
        Array.isArray(reports) && reports.length > 0
          ? ` The page logged it too: console.error “${reports[0]}”.`
          : ''
      finding.description = `${entry.summary}${reported} ${occurrenceSentence(finding, sessionStart)}`
      findings.push(finding)
    }
    return findings.sort(
      (a, b) => a.firstTimestamp - b.firstTimestamp || a.fingerprint.localeCompare(b.fingerprint),
    )
  }

  countOf(kind: Finding['kind']): number {
    let total = 0
    for (const entry of this.entries.values())
      if (entry.finding.kind === kind) total += entry.finding.occurrences
    return total
  }
}
