import type { Insight } from '@/lib/insights/views'
import type { Issue, IssueListItem } from '@/lib/issues/views'
import type { Signal } from '@/lib/signals/views'
import { plural } from './inputs'

/**
 * The readable side of each result: short lines a model can scan, always with the ids it
 * needs for the next call. The structured content carries every field.
 */
export function issueLine(issue: IssueListItem): string {
  return `- [${issue.status}] ${issue.priority} · ${plural(issue.sessionCount, 'session')} · ${issue.title} (id ${issue.id})`
}

function ticket(issue: IssueListItem): string | null {
  if (!issue.ticketUrl && !issue.ticketIdentifier) return null
  const name = [issue.ticketProvider, issue.ticketIdentifier].filter(Boolean).join(' ')
  return `Ticket: ${[name, issue.ticketUrl].filter(Boolean).join(' ')}`
}

export function issueDetails(issue: Issue): string {
  const verified = issue.aiVerified === null ? 'not reviewed' : issue.aiVerified ? 'yes' : 'no'
  const lines = [
    issue.title,
    `Id: ${issue.id}`,
    `Status: ${issue.status} · Priority: ${issue.priority} · ${plural(issue.sessionCount, 'session')} · AI verified: ${verified}`,
    `Created: ${issue.createdAt} · Updated: ${issue.updatedAt}`,
    issue.previewUrl ? `Replay: ${issue.previewUrl}` : null,
    ticket(issue),
    issue.description ? `\nDescription:\n${issue.description}` : null,
    issue.stepsToReplicate ? `\nSteps to replicate:\n${issue.stepsToReplicate}` : null,
  ]
  return lines.filter((line) => line !== null).join('\n')
}

export function signalLine(signal: Signal): string {
  const last = signal.lastMatchAt ? `last match ${signal.lastMatchAt}` : 'no match yet'
  return `- ${signal.name} [${signal.status}, backfill ${signal.backfillStatus}] · ${plural(signal.matchCount, 'match', 'matches')} · ${last} (id ${signal.id})\n  Prompt: ${signal.prompt}`
}

export function insightLine(insight: Insight): string {
  return `- ${insight.intervalStart} to ${insight.intervalEnd} · ${plural(insight.sessionsCount, 'session')} · ${insight.contentPreview} (id ${insight.id})`
}
