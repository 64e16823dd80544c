import { z } from 'zod'
import { actorOfPrincipal } from '@/lib/actor'
import { TRAIL_KINDS } from '@/lib/analysis/trail'
import { parseCursor } from '@/lib/api/params'
import { recordReplayView } from '@/lib/audit/replay-view'
import { SCOPES } from '@/lib/credentials/scopes'
import { ApiSessionDetails, TimelineWindow } from '@/lib/sessions/api-views'
import { getSessionDetails } from '@/lib/sessions/session-details'
import {
  INVALID_KINDS,
  sessionTimelineWindow,
  TIMELINE_PAGE,
  TIMELINE_WINDOW_MS,
} from '@/lib/sessions/timeline-window'
import { cursorInput, limitInput } from '../inputs'
import { boundedLines, sessionFacts, timelineHeader, timelineLine } from '../session-text'
import { defineTool } from '../tool'
import { UNTRUSTED_TOOL_NOTE, untrustedMarkers } from '../untrusted'

const windowError = `windowMs must be an integer between 1 and ${TIMELINE_WINDOW_MS.max}`

/** GET /api/v1/sessions/{id} and a page of its /timeline, as one tool. */
export const getSessionTool = defineTool({
  name: 'get_session',
  title: 'Get session',
  description: [
    'Get one recorded session: its facts (user, browser, pages, status, issues, signals, replay',
    'link), a short summary of what the user did and what went wrong, and a page of its timeline',
    '(navigations, clicks and inputs with their target elements, console messages, errors with',
    'stack, requests with status and duration, rage and dead clicks, custom events), each with',
    'its offset from the session start. Pass around (an ISO time, epoch milliseconds, or an',
    'issue id from get_issue or list_sessions) to see the window of windowMs around that moment,',
    'and kinds to keep only some entries (e.g. ["error","request"]). Page the timeline with the',
    'returned timeline.nextCursor, passing the same around, windowMs and kinds.',
    UNTRUSTED_TOOL_NOTE,
  ].join(' '),
  inputSchema: z.object({
    sessionId: z.string().describe('The session id (a UUID), as returned by list_sessions'),
    around: z
      .string()
      .optional()
      .describe(
        "An ISO 8601 time, epoch milliseconds, or an issue id (that issue's first occurrence in this session). Omit for the whole session from its start.",
      ),
    windowMs: z
      .number({ error: windowError })
      .int({ error: windowError })
      .min(1, { error: windowError })
      .max(TIMELINE_WINDOW_MS.max, { error: windowError })
      .optional()
      .describe(`The span centred on around, in ms (default ${TIMELINE_WINDOW_MS.default})`),
    limit: limitInput(TIMELINE_PAGE),
    cursor: cursorInput,
    kinds: z
      .array(z.enum(TRAIL_KINDS, { error: INVALID_KINDS }))
      .max(TRAIL_KINDS.length, { error: INVALID_KINDS })
      .optional()
      .describe('Only timeline entries of these kinds'),
  }),
  outputSchema: z.object({ session: ApiSessionDetails, timeline: TimelineWindow }),
  requiredScopes: [SCOPES.read],
  budget: 'read',
  annotations: {
    title: 'Get session',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async handler(input, { db, principal }) {
    const session = await getSessionDetails(db, principal.organizationId, input.sessionId)
    const timeline = await sessionTimelineWindow(db, principal.organizationId, session.id, {
      around: input.around,
      windowMs: input.windowMs,
      limit: input.limit,
      cursor: parseCursor(input.cursor ?? null),
      kinds: input.kinds,
    })
    // Named as the Data API names this caller; repeated calls within minutes are one entry.
    await recordReplayView(db, actorOfPrincipal(principal), { sessionId: session.id, via: 'mcp' })
    const untrusted = untrustedMarkers()
    const more = timeline.nextCursor
      ? `More timeline entries: call get_session again with the same around, windowMs and kinds and cursor "${timeline.nextCursor}".`
      : 'No more timeline entries in this window.'
    const text = boundedLines(
      [untrusted.note, ...sessionFacts(session, untrusted), '', timelineHeader(timeline)],
      timeline.entries.map((entry) => timelineLine(entry, untrusted)),
      [more],
    )
    return { structured: { session, timeline }, text }
  },
})
