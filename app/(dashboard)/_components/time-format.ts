/** Exact times are shown in UTC to the second, the same for every viewer and every server. */
export function exactTime(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`
}

const UNITS: [limit: number, size: number, unit: string][] = [
  [60, 1, 's'],
  [3600, 60, 'min'],
  [86_400, 3600, 'h'],
  [30 * 86_400, 86_400, 'd'],
]

/** "3 min ago", "in 2 h", "just now"; further than a month either way, the date itself. */
export function relativeTime(date: Date, now: number): string {
  const seconds = Math.round((now - date.getTime()) / 1000)
  const distance = Math.abs(seconds)
  if (distance < 10) return 'just now'
  for (const [limit, size, unit] of UNITS)
    if (distance < limit) {
      const amount = `${Math.floor(distance / size)} ${unit}`
      return seconds > 0 ? `${amount} ago` : `in ${amount}`
    }
  return date.toISOString().slice(0, 10)
}
