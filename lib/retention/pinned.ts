/**
 * How long a pin keeps a session (docs/privacy.md#retention): until this many days after the
 * session started, or the organization's retention if that is longer. A pin never keeps
 * anything forever, so an erasure-free organization still forgets its pinned recordings.
 */
export const PINNED_SESSION_MAX_DAYS = 365

const DAY_MS = 86_400_000

/** When the retention sweep deletes a session of this start, pinned or not. */
export function keptUntil(startedAt: Date, retentionDays: number, pinned: boolean): Date {
  const days = pinned ? Math.max(retentionDays, PINNED_SESSION_MAX_DAYS) : retentionDays
  return new Date(startedAt.getTime() + days * DAY_MS)
}
