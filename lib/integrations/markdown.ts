import { cutText } from '@/lib/analysis/trail'

/**
 * Replay text (titles, messages, steps) is written by whoever used the recorded page, so in a
 * ticket it is shown verbatim inside a code block: no link, mention, image or heading in it is
 * rendered, and nothing in it can pass for the service's own links around it.
 */

/** What stands in for a backtick in replay text: looks alike, and cannot close a fence. */
const BACKTICK_LOOKALIKE = '\u02CB'

/**
 * Bidi overrides and isolates (U+202A–U+202E, U+2066–U+2069) can make text read differently
 * from what it is; zero-width characters (U+200B–U+200D, U+FEFF) hide inside words and links.
 * Neither belongs in a ticket written from someone else's text.
 */
function isInvisible(code: number): boolean {
  return (
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069) ||
    (code >= 0x200b && code <= 0x200d) ||
    code === 0xfeff
  )
}

/**
 * One pass over the text: control characters other than tab and newline become spaces,
 * invisible characters are dropped, and (in a code block) backticks become look-alikes.
 */
function cleaned(value: string, replaceBackticks: boolean): string {
  let out = ''
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0
    if (isInvisible(code)) continue
    if ((code < 0x20 && ch !== '\n' && ch !== '\t') || (code >= 0x7f && code < 0xa0)) out += ' '
    else if (replaceBackticks && ch === '`') out += BACKTICK_LOOKALIKE
    else out += ch
  }
  return out
}

/**
 * A fenced block the text cannot close: the text holds no backtick at all, so a fixed ``` fence
 * is safe whatever renderer reads it (no reliance on longer fences being honoured).
 */
export function codeBlock(value: string, max: number): string {
  return `\`\`\`text\n${cutText(cleaned(value, true), max)}\n\`\`\``
}

/** A one-line title for the tracker: no line breaks, controls or invisible characters, at most `max` characters. */
export function plainTitle(value: string, max: number): string {
  const line = cleaned(value, false).replace(/\s+/g, ' ').trim()
  return cutText(line || 'Issue from a session replay', max)
}
