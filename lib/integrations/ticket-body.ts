import type { DbOrTx } from '@/db/client'
import { getIssueRow } from '@/lib/issues/get-issue'
import { issueSessionsOf } from '@/lib/issues/issue-sessions'
import { toIssue } from '@/lib/issues/views'
import { dashboardUrl } from '@/lib/sessions/session-links'
import { codeBlock, plainTitle } from './markdown'

/** Bounds of what goes to the tracker; every replay-written field is cut before it is fenced. */
export const TICKET_TEXT_LIMITS = {
  title: 256,
  description: 2_000,
  steps: 4_000,
  evidence: 2_000,
} as const

const STACK_FRAMES = 8

export interface TicketText {
  title: string
  description: string
}

function links(issueId: string, replay: { sessionId: string; offsetMs: number } | null) {
  return {
    issue: dashboardUrl(`/issues/${issueId}`),
    replay: replay ? dashboardUrl(`/sessions/${replay.sessionId}?t=${replay.offsetMs}`) : null,
    reproduction: dashboardUrl(`/api/v1/issues/${issueId}/reproduction`),
  }
}

function evidenceOf(issue: ReturnType<typeof toIssue>): string | null {
  const lines: string[] = []
  if (issue.serverMessage) lines.push(`Server message: ${issue.serverMessage}`)
  for (const frame of issue.originalStack?.frames.slice(0, STACK_FRAMES) ?? []) {
    const at = frame.original
      ? `${frame.original.fn ?? '<anonymous>'} (${frame.original.source}:${frame.original.line}:${frame.original.column})`
      : `${frame.minified.fn || '<anonymous>'} (${frame.minified.url}:${frame.minified.line}:${frame.minified.column})`
    lines.push(`at ${at}`)
  }
  return lines.length > 0 ? lines.join('\n') : null
}

/**
 * The tracker issue for one of ours: the title, and a Markdown description with the service's
 * own links (the issue page, the replay at the moment it happened, a share link of it when
 * enabled, the reproduction test) and
 * the replay's text in code blocks (markdown.ts says why).
 */
export async function ticketText(
  db: DbOrTx,
  organizationId: string,
  issueId: string,
  /** The share link's line (docs/sharing.md#ticket-links), when the organization enabled them. */
  options: { shareLink?: string } = {},
): Promise<TicketText> {
  const row = await getIssueRow(db, organizationId, issueId)
  const issue = toIssue(row)
  const { sessions } = await issueSessionsOf(db, organizationId, issueId, 1)
  const first = sessions[0]
  const to = links(issue.id, first ? { sessionId: first.sessionId, offsetMs: first.offsetMs } : null)
  const parts = [
    'Filed from Session Replay. Text in code blocks comes from the recorded session, verbatim.',
    '',
    `- Issue: ${to.issue}`,
    to.replay ? `- Replay at the moment it happened: ${to.replay}` : null,
    to.replay && options.shareLink ? `- Replay without an account: ${options.shareLink}` : null,
    `- Reproduction test (Data API, needs a read:service key): ${to.reproduction}`,
    '',
    `**Kind:** ${row.kind} · **Priority:** ${issue.priority} · **Sessions:** ${issue.sessionCount} · **First seen:** ${issue.createdAt}`,
    '',
    '### What happened',
    codeBlock(
      issue.description ? `${issue.title}\n\n${issue.description}` : issue.title,
      TICKET_TEXT_LIMITS.description,
    ),
  ]
  const evidence = evidenceOf(issue)
  if (evidence) parts.push('', '### Evidence', codeBlock(evidence, TICKET_TEXT_LIMITS.evidence))
  if (issue.stepsToReplicate)
    parts.push('', '### Steps to reproduce', codeBlock(issue.stepsToReplicate, TICKET_TEXT_LIMITS.steps))
  // Every replay part is cut before it is fenced, so the whole stays near 9,000 characters:
  // under GitHub's 65,536 and Linear's limits, without cutting through a fence.
  return {
    title: plainTitle(issue.title, TICKET_TEXT_LIMITS.title),
    description: parts.filter((p) => p !== null).join('\n'),
  }
}
