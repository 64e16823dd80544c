/** Dates in settings tables: unambiguous, the same for every reader, minute precision. */
export function formatDateTime(date: Date | null, empty = 'never'): string {
  return date ? `${date.toISOString().replace('T', ' ').slice(0, 16)} UTC` : empty
}

export function formatDate(date: Date): string {
  return date.toISOString().slice(0, 10)
}
