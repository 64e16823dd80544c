import { cutText } from '@/lib/analysis/trail'

/**
 * How much one tool answer may put into an agent's context. Tools size their pages to stay
 * well inside it (timeline windows, reproduction steps, list limits); the runner enforces the
 * text side as a last resort, so a session full of long messages cannot flood the model.
 * About 6,000 tokens of text; the structured content of the largest page stays under its own
 * figure by the tools' limits (checked by the walkthrough test).
 */
export const ANSWER_BUDGET = {
  textChars: 24_000,
  structuredBytes: 96 * 1024,
} as const

const OVER_BUDGET_NOTE =
  '\n[This answer was cut to the tool budget: ask for a smaller window or page to see the rest.]'

// Room for closing one untrusted block the cut fell into (the id is 16 hex digits).
const CLOSING_ROOM = '\n</untrusted-data id="0123456789abcdef">'.length
const OPENING = /<untrusted-data id="([0-9a-f]{16})">/g

/**
 * The untrusted block `text` ends inside, if any. Page text inside a block cannot spell the
 * marker (lib/mcp/untrusted.ts neutralises it), so the last opening marker without its closing
 * one is the block the cut fell into.
 */
function openBlockId(text: string): string | null {
  let open: string | null = null
  for (const match of text.matchAll(OPENING)) open = match[1]!
  if (open === null) return null
  return text.lastIndexOf(`</untrusted-data id="${open}">`) >
    text.lastIndexOf(`<untrusted-data id="${open}">`)
    ? null
    : open
}

/**
 * The readable text of an answer, cut to the budget with a note the model can act on; a cut
 * inside untrusted text closes that block first, so the note stays outside it.
 */
export function withinTextBudget(text: string): string {
  if (text.length <= ANSWER_BUDGET.textChars) return text
  const cut = cutText(text, ANSWER_BUDGET.textChars - OVER_BUDGET_NOTE.length - CLOSING_ROOM)
  const open = openBlockId(cut)
  return `${cut}${open ? `\n</untrusted-data id="${open}">` : ''}${OVER_BUDGET_NOTE}`
}
