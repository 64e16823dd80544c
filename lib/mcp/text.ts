import { isUuid } from '@/lib/errors'
import type { Insight } from '@/lib/insights/views'
import type { Issue, IssueDetail, IssueListItem } from '@/lib/issues/views'
import type { Verification } from '@/lib/releases/verification-view'
import type { Signal } from '@/lib/signals/views'
import { plural } from './inputs'
import type { UntrustedMarkers } from './untrusted'

/**
 * The readable side of each result: short lines a model can scan, always with the ids it
 * needs for the next call. The structured content carries every field. Stored free text
 * (titles, descriptions, steps, tickets, signal names and prompts, insight text) goes between
 * the result's untrusted-data markers; ids, statuses, counts, dates, our replay links and our
 * own labels stay outside them.
 */
export function issueLine(issue: IssueListItem, untrusted: UntrustedMarkers): string {
  return `- [${issue.status}] ${issue.priority} · ${plural(issue.sessionCount, 'session')} · ${untrusted.wrap(issue.title)} (id ${issue.id})`
}

function ticket(issue: IssueListItem, untrusted: UntrustedMarkers): string | null {
  if (!issue.ticketUrl && !issue.ticketIdentifier) return null
  const name = [issue.ticketProvider, issue.ticketIdentifier].filter(Boolean).join(' ')
  return `Ticket: ${untrusted.wrap([name, issue.ticketUrl].filter(Boolean).join(' '))}`
}

/** The session the replay link opens (we build the link: record-findings.ts previewUrl). */
function previewSessionId(previewUrl: string | null): string | null {
  if (!previewUrl) return null
  try {
    const session = new URL(previewUrl).searchParams.get('session')
    return session && isUuid(session) ? session : null
  } catch {
    return null
  }
}

/** What an agent can call next to see the session behind the issue and to reproduce it. */
function nextCalls(issue: Issue): string {
  const session = previewSessionId(issue.previewUrl)
  const lines = [
    session
      ? `Session: ${session} (get_session with sessionId "${session}" and around "${issue.id}" shows what the user did around the problem)`
      : null,
    `Reproduce: get_issue_reproduction with issueId "${issue.id}" returns a Playwright test that fails until the bug is fixed.`,
  ]
  return lines.filter((line) => line !== null).join('\n')
}

/** Recorder-sent, so marked. */
function releases(issue: IssueListItem, untrusted: UntrustedMarkers): string | null {
  if (!issue.firstRelease && !issue.lastRelease) return null
  const name = (release: string | null) => (release ? untrusted.wrap(release) : 'none recorded')
  return `First release: ${name(issue.firstRelease)} · Latest release: ${name(issue.lastRelease)}`
}

/** How a resolved issue was resolved, after "resolved" (release names are recorder-sent or caller-sent, so marked). */
export function resolutionPhrase(issue: Issue, untrusted: UntrustedMarkers): string {
  if (issue.status !== 'resolved') return ''
  if (issue.resolvedInRelease) return ` in release ${untrusted.wrap(issue.resolvedInRelease)}`
  if (issue.resolvedInNextRelease)
    return ` in the next release (the first release seen after ${issue.resolvedAt ?? 'now'})`
  return ''
}

/** The occurrences after a fix that did not reopen it, and why it last came back. */
function releaseHistory(issue: IssueDetail, untrusted: UntrustedMarkers): string | null {
  const name = (release: string | null) => (release ? untrusted.wrap(release) : 'no release')
  const fix = issue.resolvedInRelease
    ? ` after the fix in ${untrusted.wrap(issue.resolvedInRelease)}`
    : ' after the fix'
  const lines = issue.oldReleaseOccurrences.map(
    (group) =>
      `Seen in ${name(group.release)}${fix}: ${plural(group.sessions, 'session')}, not a regression (last ${group.lastSeenAt})`,
  )
  const regression = issue.regression
  if (regression)
    lines.push(
      `Last regression: ${regression.at}, session ${regression.sessionId}, release ${name(regression.release)}${
        regression.resolvedInRelease ? ` (fixed in ${untrusted.wrap(regression.resolvedInRelease)})` : ''
      }`,
    )
  return lines.length > 0 ? lines.join('\n') : null
}

/** `stack`: the error's stack section (stack-text.ts), already marked; null for other issues. */
export function issueDetails(
  issue: Issue | IssueDetail,
  untrusted: UntrustedMarkers,
  stack: string | null = null,
): string {
  const verified = issue.aiVerified === null ? 'not reviewed' : issue.aiVerified ? 'yes' : 'no'
  const lines = [
    untrusted.note,
    untrusted.wrap(issue.title),
    `Id: ${issue.id}`,
    `Status: ${issue.status}${resolutionPhrase(issue, untrusted)} · Priority: ${issue.priority} · ${plural(issue.sessionCount, 'session')} · AI verified: ${verified}`,
    // Names elements of the recorded page, so it is marked like the title.
    issue.priorityReason ? `Why ${issue.priority}: ${untrusted.wrap(issue.priorityReason)}` : null,
    `Created: ${issue.createdAt} · Updated: ${issue.updatedAt}`,
    releases(issue, untrusted),
    'oldReleaseOccurrences' in issue ? releaseHistory(issue, untrusted) : null,
    // Built by us from the base URL and ids (record-findings.ts), so not marked.
    issue.previewUrl ? `Replay: ${issue.previewUrl}` : null,
    ticket(issue, untrusted),
    // The response body's words, chosen by whoever answered the recorded request.
    issue.serverMessage ? `Server message: ${untrusted.wrap(issue.serverMessage)}` : null,
    issue.description ? `\nDescription:\n${untrusted.wrap(issue.description)}` : null,
    issue.stepsToReplicate ? `\nSteps to replicate:\n${untrusted.wrap(issue.stepsToReplicate)}` : null,
    stack ? `\n${stack}` : null,
    `\n${nextCalls(issue)}`,
  ]
  return lines.filter((line) => line !== null).join('\n')
}

export function signalLine(signal: Signal, untrusted: UntrustedMarkers): string {
  const last = signal.lastMatchAt ? `last match ${signal.lastMatchAt}` : 'no match yet'
  const filter = signal.savedSearchId ? ` · only sessions of saved search ${signal.savedSearchId}` : ''
  return `- ${untrusted.wrap(signal.name)} [${signal.status}, backfill ${signal.backfillStatus}] · ${plural(signal.matchCount, 'match', 'matches')} · ${last}${filter} (id ${signal.id})\n  Prompt: ${untrusted.wrap(signal.prompt)}`
}

export function insightLine(insight: Insight, untrusted: UntrustedMarkers): string {
  return `- ${insight.intervalStart} to ${insight.intervalEnd} · ${plural(insight.sessionsCount, 'session')} · ${untrusted.wrap(insight.contentPreview)} (id ${insight.id})`
}

/**
 * One reproduction run. The address and release are the runner's words and the summary quotes
 * Playwright's failure output, which may quote a recorded page: all marked.
 */
export function verificationLine(run: Verification, untrusted: UntrustedMarkers): string {
  const release = run.release ? ` in release ${untrusted.wrap(run.release)}` : ''
  const duration = run.durationMs === null ? '' : ` in ${run.durationMs} ms`
  const outcome = run.status === 'passed' ? 'Reproduction passed (fix verified)' : 'Reproduction still fails'
  return [
    `- ${run.createdAt} · ${outcome}${release} against ${untrusted.wrap(run.baseUrl)} · runner ${run.runner}${duration} (verification id ${run.id})`,
    run.summary ? `  Summary: ${untrusted.wrap(run.summary)}` : null,
  ]
    .filter((line) => line !== null)
    .join('\n')
}

/** The issue's latest runs for get_issue, newest first. */
export function verificationsSection(runs: readonly Verification[], untrusted: UntrustedMarkers): string {
  if (runs.length === 0) return 'Verification: no reproduction run reported yet (report_reproduction_result).'
  return ['Verification (latest first):', ...runs.map((run) => verificationLine(run, untrusted))].join('\n')
}
