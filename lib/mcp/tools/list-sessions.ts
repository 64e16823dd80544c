import { z } from 'zod'
import { parseCursor } from '@/lib/api/params'
import { SCOPES } from '@/lib/credentials/scopes'
import { SessionItem } from '@/lib/sessions/api-views'
import { listSessionItems, SESSION_ITEMS_PAGE } from '@/lib/sessions/list-session-items'
import { AUTOMATION_FILTERS } from '@/lib/sessions/list-sessions'
import { cursorInput, limitInput, moreLine, nextCursorOutput, plural } from '../inputs'
import { boundedLines, momentLines, sessionLine } from '../session-text'
import { defineTool } from '../tool'
import { UNTRUSTED_TOOL_NOTE, untrustedMarkers } from '../untrusted'

/** GET /api/v1/sessions as a tool. */
export const listSessionsTool = defineTool({
  name: 'list_sessions',
  title: 'List sessions',
  description: [
    "List your organization's recorded browser sessions, newest first, with their user, length,",
    'pages, processing status, and the issues and signals each belongs to. Filter by user id or',
    'e-mail, a URL fragment, hasErrors, an issue or a signal, a release, or a start time range; automated',
    "traffic (reproduction runs, bots) only with automation: 'include' or 'only'. Page with",
    'the returned nextCursor. Search by what happened with q, e.g. "click.text = Pay then error within 60s"',
    'or "request[url ~ /api/cart and status >= 500] and not page.path = /thanks" (docs/search.md); each',
    'session then lists the first moments that matched. Call get_session for the summary and timeline of one session.',
    UNTRUSTED_TOOL_NOTE,
  ].join(' '),
  inputSchema: z.object({
    limit: limitInput(SESSION_ITEMS_PAGE),
    cursor: cursorInput,
    userId: z.string().optional().describe("The site's own user id (exact)"),
    userEmail: z.string().optional().describe("The user's e-mail (exact, any case)"),
    url: z.string().optional().describe('Contained in the entry URL or in any page the user visited'),
    hasErrors: z
      .boolean()
      .optional()
      .describe('true: only sessions with errors; false: analysed ones without'),
    issueId: z.string().optional().describe('Only sessions in which this issue occurred (an issue id)'),
    signalId: z.string().optional().describe('Only sessions this signal matched (a signal id)'),
    release: z
      .string()
      .optional()
      .describe("Only sessions of this release (exact, as the recorder's release option named it)"),
    from: z.string().optional().describe('Started at or after this ISO 8601 time, e.g. 2026-01-31T12:00:00Z'),
    to: z.string().optional().describe('Started at or before this ISO 8601 time'),
    automation: z
      .enum(AUTOMATION_FILTERS)
      .optional()
      .describe(
        "Automated traffic (reproduction runs, WebDriver, bots) is left out by default: 'include' adds it, 'only' lists nothing else",
      ),
    q: z
      .string()
      .optional()
      .describe(
        'A search query: moments (click input page console error request rage_click dead_click event, e.g. error.message ~ timeout), sequences with then and within, session fields (user.id, release, browser, os, device, duration, pages, errors), combined with and, or, not and parentheses',
      ),
  }),
  outputSchema: z.object({ sessions: z.array(SessionItem), nextCursor: nextCursorOutput }),
  requiredScopes: [SCOPES.read],
  budget: 'read',
  annotations: {
    title: 'List sessions',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async handler(input, { db, principal }) {
    const { limit, cursor, ...filters } = input
    const page = await listSessionItems(db, principal.organizationId, {
      limit,
      cursor: parseCursor(cursor ?? null),
      ...filters,
    })
    const untrusted = untrustedMarkers()
    const text = boundedLines(
      [`${plural(page.items.length, 'session')}, newest first:`, untrusted.note],
      page.items.map((item) => [sessionLine(item, untrusted), ...momentLines(item, untrusted)].join('\n')),
      [moreLine('list_sessions', page.nextCursor)],
    )
    return { structured: { sessions: page.items, nextCursor: page.nextCursor }, text }
  },
})
