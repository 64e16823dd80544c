import { cutText } from '@/lib/analysis/trail'

/**
 * Replay text (titles, messages, steps) is written by whoever used the recorded page, so in a
 * ticket it is shown verbatim inside a code block: no link, mention, image or heading in it is
 * rendered, and nothing in it can pass for the service's own links around it.
 */

/** Control characters other than tab and newline: nothing a tracker should be asked to show. */
function withoutControls(value: string): string {
  let out = ''
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0
    out += (code < 0x20 && ch !== '\n' && ch !== '\t') || (code >= 0x7f && code < 0xa0) ? ' ' : ch
  }
  return out
}

/** The longest run of one character in `value` (linear: one pass). */
function longestRun(value: string, ch: string): number {
  let longest = 0
  let run = 0
  for (const c of value) {
    run = c === ch ? run + 1 : 0
    if (run > longest) longest = run
  }
  return longest
}

/**
 * A fenced block the text cannot close: CommonMark closes a fence only with a run at least as
 * long as the opening one, so the fence is longer than any backtick run inside.
 */
export function codeBlock(value: string, max: number): string {
  const body = cutText(withoutControls(value), max)
  const fence = '`'.repeat(Math.max(3, longestRun(body, '`') + 1))
  return `${fence}text\n${body}\n${fence}`
}

/** A one-line title for the tracker: no line breaks or controls, at most `max` characters. */
export function plainTitle(value: string, max: number): string {
  const line = withoutControls(value).replace(/\s+/g, ' ').trim()
  return cutText(line || 'Issue from a session replay', max)
}
