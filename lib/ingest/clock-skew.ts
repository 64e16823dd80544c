/**
 * The one clock rule for times a recording carries (docs/hostile-input.md#times-come-from-the-server):
 * a time more than CLOCK_SKEW_MS after the server received it is taken as received + CLOCK_SKEW_MS.
 * Browsers' clocks drift by seconds, so a genuine recording is never changed; a recording dated in
 * the future (a wrong clock, or a forgery meant to stay "latest") cannot rank above what the
 * server saw later. Clamped, not refused: the ingest contract accepts any epoch time, and a batch
 * from a browser with a wrong clock is still a real visit.
 */
export const CLOCK_SKEW_MS = 5 * 60_000

/** `at` (epoch ms, the recording's clock), no later than the skew after `receivedAt` (the server's). */
export function notAfterReceipt(at: number, receivedAt: number): number {
  return Math.min(at, receivedAt + CLOCK_SKEW_MS)
}
