import type { Condition, ParsedPrompt } from './deterministic-match'

/**
 * How the keyword rules read a prompt, in plain words, for the preview before a signal is
 * saved (issue 15): a prompt that silently matches nothing is worse than one that says so.
 */
const CONDITIONS: Record<Condition, string> = {
  error: 'the session had a JavaScript error',
  network: 'a request failed',
  rage: 'the user rage-clicked (clicked one element fast, with no response)',
  dead: 'a click got no response',
}

const MAX_SHOWN = 20

export interface PromptReading {
  /** Every line must hold for a session to match. */
  conditions: string[]
  /** False when nothing in the prompt can be checked: it matches no session. */
  checkable: boolean
}

export function describePrompt(parsed: ParsedPrompt): PromptReading {
  const conditions = parsed.conditions.map((condition) => CONDITIONS[condition])
  for (const path of parsed.paths.slice(0, MAX_SHOWN))
    conditions.push(`the user visited ${path} or a page below it, or a request to it failed`)
  if (parsed.paths.length > MAX_SHOWN) conditions.push(`… and ${parsed.paths.length - MAX_SHOWN} more paths`)
  if (parsed.keywords.length > 0) {
    const shown = parsed.keywords.slice(0, MAX_SHOWN).map((word) => `“${word}”`)
    const more = parsed.keywords.length > MAX_SHOWN ? ` and ${parsed.keywords.length - MAX_SHOWN} more` : ''
    conditions.push(
      `${parsed.keywords.length === 1 ? '' : 'at least one of '}${shown.join(', ')}${more} appears in a page URL, clicked text, an error message or a failed request’s URL`,
    )
  }
  return { conditions, checkable: conditions.length > 0 }
}
