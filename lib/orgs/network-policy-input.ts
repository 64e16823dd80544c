// Types only from the schema: this module is also bundled for the browser.
import type { NetworkDetailPolicy } from '@/db/schema/organizations'
import { InvalidInputError } from '@/lib/errors'

/**
 * The network details policy's input rules (network-policy.ts), apart from the database code so
 * the Settings form can show the same limits and labels.
 */

export const MAX_REDACT_KEYS = 50
export const MAX_REDACT_KEY_CHARS = 64
// Enough for the largest valid list with generous separators; longer input is refused unread.
const MAX_REDACT_INPUT_CHARS = MAX_REDACT_KEYS * (MAX_REDACT_KEY_CHARS + 8)

/** Every policy (the Record type keeps it in step with NETWORK_DETAIL_POLICIES) and its label. */
export const POLICY_LABELS: Record<NetworkDetailPolicy, string> = {
  redact: 'Redact at ingest (default)',
  drop: 'Drop all headers and bodies',
}

function isWordCode(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || // a-z
    (code >= 65 && code <= 90) || // A-Z
    (code >= 48 && code <= 57) || // 0-9
    code === 95 || // _
    code === 45 // -
  )
}

export function parsePolicy(value: string): NetworkDetailPolicy {
  const policies = Object.keys(POLICY_LABELS) as NetworkDetailPolicy[]
  const policy = policies.find((p) => p === value.trim())
  if (!policy) throw new InvalidInputError(`Network details policy must be one of: ${policies.join(', ')}`)
  return policy
}

/**
 * Key words separated by commas or line breaks: at most MAX_REDACT_KEYS words of at most
 * MAX_REDACT_KEY_CHARS letters, digits, `_` or `-`. Lower-cased (ingest matches them
 * case-insensitively, as the recorder does) and without repeats. Throws on the first bad word.
 */
export function parseRedactKeys(text: string): string[] {
  if (text.length > MAX_REDACT_INPUT_CHARS)
    throw new InvalidInputError(
      `Redacted key words are too long: at most ${MAX_REDACT_KEYS} words of at most ${MAX_REDACT_KEY_CHARS} characters`,
    )
  const words: string[] = []
  for (const part of text.split(/[,\r\n]/)) {
    const word = part.trim()
    if (word === '') continue
    if (word.length > MAX_REDACT_KEY_CHARS)
      throw new InvalidInputError(
        `Redacted key word "${word.slice(0, 20)}…" is longer than ${MAX_REDACT_KEY_CHARS} characters`,
      )
    for (let i = 0; i < word.length; i++) {
      if (!isWordCode(word.charCodeAt(i)))
        throw new InvalidInputError(
          `Redacted key word "${word}" may hold only letters, digits, _ and - (separate words with commas or new lines)`,
        )
    }
    const lower = word.toLowerCase()
    if (!words.includes(lower)) words.push(lower)
  }
  if (words.length > MAX_REDACT_KEYS)
    throw new InvalidInputError(`At most ${MAX_REDACT_KEYS} redacted key words (got ${words.length})`)
  return words
}
