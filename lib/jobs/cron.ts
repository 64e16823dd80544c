/** Inngest schedules have minute resolution; the in-process engine uses the exact seconds. */
export function cronEvery(seconds: number): string {
  const minutes = Math.max(1, Math.round(seconds / 60))
  if (minutes < 60) return `*/${minutes} * * * *`
  const hours = Math.max(1, Math.round(minutes / 60))
  return hours < 24 ? `0 */${hours} * * *` : '0 0 * * *'
}

/** A schedule both engines read: the cron for Inngest, the exact seconds for the in-process runner. */
export function every(seconds: number): { cron: string; everySeconds: number } {
  return { cron: cronEvery(seconds), everySeconds: seconds }
}
