import { z } from 'zod'
import { parseCursor } from '@/lib/api/params'
import { SCOPES } from '@/lib/credentials/scopes'
import { INSIGHTS_PAGE, listInsights } from '@/lib/insights/list-insights'
import { Insight } from '@/lib/insights/views'
import { cursorInput, limitInput, moreLine, nextCursorOutput, plural } from '../inputs'
import { insightLine } from '../text'
import { defineTool } from '../tool'
import { UNTRUSTED_TOOL_NOTE, untrustedMarkers } from '../untrusted'

/** GET /api/v1/insights as a tool. */
export const listInsightsTool = defineTool({
  name: 'list_insights',
  title: 'List insights',
  description: [
    "List your organization's AI insights, newest first: periodic summaries of what happened",
    'across the recorded sessions of an interval (trends, new problems), each with the interval,',
    'the number of sessions it covers and a preview of its text. Page with the returned nextCursor.',
    UNTRUSTED_TOOL_NOTE,
  ].join(' '),
  inputSchema: z.object({ limit: limitInput(INSIGHTS_PAGE), cursor: cursorInput }),
  outputSchema: z.object({ insights: z.array(Insight), nextCursor: nextCursorOutput }),
  requiredScopes: [SCOPES.read],
  budget: 'read',
  annotations: {
    title: 'List insights',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async handler(input, { db, principal }) {
    const page = await listInsights(db, principal, {
      limit: input.limit,
      cursor: parseCursor(input.cursor ?? null),
    })
    const untrusted = untrustedMarkers()
    const text = [
      `${plural(page.items.length, 'insight')}, newest first:`,
      untrusted.note,
      ...page.items.map((item) => insightLine(item, untrusted)),
      moreLine('list_insights', page.nextCursor),
    ]
    return { structured: { insights: page.items, nextCursor: page.nextCursor }, text: text.join('\n') }
  },
})
