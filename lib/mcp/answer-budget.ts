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

/** The readable text of an answer, cut to the budget with a note the model can act on. */
export function withinTextBudget(text: string): string {
  if (text.length <= ANSWER_BUDGET.textChars) return text
  return `${cutText(text, ANSWER_BUDGET.textChars - OVER_BUDGET_NOTE.length)}${OVER_BUDGET_NOTE}`
}
