import { z } from 'zod'
import { SCOPES } from '@/lib/credentials/scopes'
import { symbolicatedFrames } from '@/lib/issues/evidence-frames'
import { getIssueDetail } from '@/lib/issues/issue-detail'
import { IssueDetail } from '@/lib/issues/views'
import { issueIdInput } from '../inputs'
import { issueStack } from '../stack-text'
import { issueDetails, verificationsSection } from '../text'
import { defineTool } from '../tool'
import { UNTRUSTED_TOOL_NOTE, untrustedMarkers } from '../untrusted'

/** GET /api/v1/issues/{issueId} as a tool. */
export const getIssueTool = defineTool({
  name: 'get_issue',
  title: 'Get issue',
  description: [
    'Get one issue of your organization by id: title, description, status, priority and why it got it, affected',
    'sessions, steps to replicate, replay preview link, linked ticket and whether an AI review',
    'verified it, the releases it was seen in, and for errors the stack (in original source frames',
    "when source maps were uploaded for the release), for failed requests the server's error message",
    'when the recorder captured the response body, the release it was resolved in, sessions of older',
    'releases seen after the fix (not regressions), why it last regressed, and its latest reproduction',
    'runs (whether the fix was verified). Use it before fixing or triaging an issue',
    'found with list_issues.',
    UNTRUSTED_TOOL_NOTE,
  ].join(' '),
  inputSchema: z.object({ issueId: issueIdInput }),
  outputSchema: z.object({ issue: IssueDetail }),
  requiredScopes: [SCOPES.read],
  budget: 'read',
  annotations: {
    title: 'Get issue',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async handler(input, { db, principal }) {
    // The row once: the issue's shape for the answer, its evidence for the stack in the text.
    const { row, issue } = await getIssueDetail(db, principal, input.issueId)
    const untrusted = untrustedMarkers()
    const stack = issueStack(row.evidence, symbolicatedFrames(row.evidence), untrusted)
    return {
      structured: { issue },
      text: `${issueDetails(issue, untrusted, stack)}\n\n${verificationsSection(issue.verifications, untrusted)}`,
    }
  },
})
