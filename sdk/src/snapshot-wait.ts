/**
 * The recorder's wait for a full snapshot after a gap (a new session, an error-only session
 * promoted without a buffer, the return from a denied page): until rrweb's next Meta event,
 * what it emits points at nodes the server has no snapshot of, and is dropped. rrweb's
 * `takeFullSnapshot` can throw or be skipped; asked once, the wait could then last for good
 * and the session record nothing more, so it is asked again while events keep coming. Pure,
 * so Node tests drive it.
 */

const META_EVENT = 4

/** How long an asked snapshot may stay missing before it is asked again. */
export const SNAPSHOT_RETRY_MS = 5000

export class SnapshotWait {
  /** When the snapshot was last asked for; null while not waiting. */
  private askedAt: number | null = null

  constructor(
    /** Takes a full snapshot soon (not synchronously: rrweb may be emitting). */
    private readonly ask: () => void,
    private readonly retryMs = SNAPSHOT_RETRY_MS,
  ) {}

  get waiting(): boolean {
    return this.askedAt !== null
  }

  /** Drops events from now until the next Meta event, and asks for the snapshot. */
  start(now: number): void {
    this.askedAt = now
    this.ask()
  }

  /** Whether an event of `type` is dropped; the Meta event ends the wait. */
  drops(type: number, now: number): boolean {
    if (this.askedAt === null) return false
    if (type === META_EVENT) {
      this.askedAt = null
      return false
    }
    if (now - this.askedAt >= this.retryMs) this.start(now)
    return true
  }
}
