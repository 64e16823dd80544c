import type { IntervalFigures } from './figures'

const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0)

function change(current: number, previous: number | null): string {
  if (previous === null) return ''
  const delta = Math.round((current - previous) * 10) / 10
  if (delta === 0) return ' (unchanged)'
  return ` (${delta > 0 ? '+' : ''}${delta} points)`
}

function formatDuration(ms: number | null): string {
  if (ms === null) return 'unknown'
  const seconds = Math.round(ms / 1000)
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}

/**
 * The insight's text without a language model: what changed first, then the figures. Built
 * only from the figures, so it never states anything the data does not show.
 */
export function insightMarkdown(
  current: IntervalFigures,
  previous: IntervalFigures | null,
  risen: string[],
): string {
  const rate = (n: number) => percent(n, current.sessions)
  const previousRate = (pick: (f: IntervalFigures['friction']) => number) =>
    previous && previous.sessions > 0 ? percent(pick(previous.friction), previous.sessions) : null
  const lines = [`# ${current.sessions} sessions from ${current.users} users`, '']
  if (risen.length) lines.push(`**What changed:** ${risen.join('; ')}.`, '')
  else if (previous)
    lines.push(
      `**What changed:** sessions ${current.sessions >= previous.sessions ? 'up' : 'down'} from ${previous.sessions}.`,
      '',
    )
  lines.push(
    '## Friction',
    `- JavaScript errors in ${rate(current.friction.errors)}% of sessions${change(
      rate(current.friction.errors),
      previousRate((f) => f.errors),
    )}`,
    `- Failed requests in ${rate(current.friction.networkFailures)}% of sessions${change(
      rate(current.friction.networkFailures),
      previousRate((f) => f.networkFailures),
    )}`,
    `- Rage clicks in ${rate(current.friction.rageClicks)}% of sessions${change(
      rate(current.friction.rageClicks),
      previousRate((f) => f.rageClicks),
    )}`,
    `- Dead clicks in ${rate(current.friction.deadClicks)}% of sessions${change(
      rate(current.friction.deadClicks),
      previousRate((f) => f.deadClicks),
    )}`,
    '',
    '## Engagement',
    `- Median session length: ${formatDuration(current.medianDurationMs)}`,
    ...(current.topPages.length
      ? [`- Top pages: ${current.topPages.map((p) => `${p.path} (${p.sessions})`).join(', ')}`]
      : []),
    '',
  )
  if (current.topIssues.length)
    lines.push(
      '## Issues seen most',
      ...current.topIssues.map((i) => `- ${i.title} — ${i.sessions} sessions`),
      '',
    )
  if (current.newIssues.length)
    lines.push('## New issues', ...current.newIssues.map((i) => `- ${i.title}`), '')
  return lines.join('\n').trim()
}

/** The first 280 characters of the text, as plain text (markdown marks removed). */
export function plainPreview(markdown: string, length = 280): string {
  const plain = markdown
    .replace(/^#+\s*/gm, '')
    .replace(/\*\*|__|`/g, '')
    // Indentation only up to the line's end: `^\s*` ran on over blank lines from every line start.
    .replace(/^[^\S\n\r\u2028\u2029]*[-*]\s+/gm, '')
    .replace(/\s+/g, ' ')
    .trim()
  return plain.length <= length ? plain : `${plain.slice(0, length - 1).trimEnd()}…`
}
