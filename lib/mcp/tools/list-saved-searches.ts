import { z } from 'zod'
import { parseCursor } from '@/lib/api/params'
import { SCOPES } from '@/lib/credentials/scopes'
import { listSavedSearches, SAVED_SEARCHES_PAGE } from '@/lib/saved-searches/saved-searches'
import { SavedSearch } from '@/lib/saved-searches/views'
import { cursorInput, limitInput, moreLine, nextCursorOutput, plural } from '../inputs'
import { defineTool } from '../tool'
import { UNTRUSTED_TOOL_NOTE, untrustedMarkers } from '../untrusted'

/** GET /api/v1/saved-searches as a tool. */
export const listSavedSearchesTool = defineTool({
  name: 'list_saved_searches',
  title: 'List saved searches',
  description: [
    "List your organization's saved searches, newest first: named queries in the search language",
    '(for example `click.text = Pay then error within 60s`) that members share and that signals and',
    'alert rules may use as their filter. Pass a query as list_sessions q to find its sessions.',
    'Page with the returned nextCursor.',
    UNTRUSTED_TOOL_NOTE,
  ].join(' '),
  inputSchema: z.object({ limit: limitInput(SAVED_SEARCHES_PAGE), cursor: cursorInput }),
  outputSchema: z.object({ savedSearches: z.array(SavedSearch), nextCursor: nextCursorOutput }),
  requiredScopes: [SCOPES.read],
  budget: 'read',
  annotations: {
    title: 'List saved searches',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async handler(input, { db, principal }) {
    const page = await listSavedSearches(db, principal.organizationId, {
      limit: input.limit,
      cursor: parseCursor(input.cursor ?? null),
    })
    // Names and queries are typed by members or API keys, and a query quotes recorded text.
    const untrusted = untrustedMarkers()
    const text = [
      `${plural(page.items.length, 'saved search', 'saved searches')}, newest first:`,
      untrusted.note,
      ...page.items.map(
        (s) => `- ${untrusted.wrap(s.name)} (id ${s.id})\n  Query: ${untrusted.wrap(s.query)}`,
      ),
      moreLine('list_saved_searches', page.nextCursor),
    ]
    return {
      structured: { savedSearches: page.items, nextCursor: page.nextCursor },
      text: text.join('\n'),
    }
  },
})
