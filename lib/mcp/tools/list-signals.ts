import { z } from 'zod'
import { parseCursor } from '@/lib/api/params'
import { SCOPES } from '@/lib/credentials/scopes'
import { listSignals, SIGNALS_PAGE } from '@/lib/signals/list-signals'
import { Signal } from '@/lib/signals/views'
import { cursorInput, limitInput, moreLine, nextCursorOutput, plural } from '../inputs'
import { signalLine } from '../text'
import { defineTool } from '../tool'
import { UNTRUSTED_TOOL_NOTE, untrustedMarkers } from '../untrusted'

/** GET /api/v1/signals as a tool. */
export const listSignalsTool = defineTool({
  name: 'list_signals',
  title: 'List signals',
  description: [
    "List your organization's signals, newest first: saved prompts that every recorded session",
    'is matched against (for example "users who fail to pay"), with how many sessions matched',
    'and when the last one did. Page with the returned nextCursor.',
    UNTRUSTED_TOOL_NOTE,
  ].join(' '),
  inputSchema: z.object({ limit: limitInput(SIGNALS_PAGE), cursor: cursorInput }),
  outputSchema: z.object({ signals: z.array(Signal), nextCursor: nextCursorOutput }),
  requiredScopes: [SCOPES.read],
  budget: 'read',
  annotations: {
    title: 'List signals',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async handler(input, { db, principal }) {
    const page = await listSignals(db, principal, {
      limit: input.limit,
      cursor: parseCursor(input.cursor ?? null),
    })
    const untrusted = untrustedMarkers()
    const text = [
      `${plural(page.items.length, 'signal')}, newest first:`,
      untrusted.note,
      ...page.items.map((item) => signalLine(item, untrusted)),
      moreLine('list_signals', page.nextCursor),
    ]
    return { structured: { signals: page.items, nextCursor: page.nextCursor }, text: text.join('\n') }
  },
})
