import { isSamplingMode, type SamplingMode } from './sampling'
import type { KeyValueStore } from './storage'

export const SESSION_KEY = 'svc_replay:session'
export const WINDOW_KEY = 'svc_replay:window'
export const ANONYMOUS_KEY = 'svc_replay:anonymous_id'

/** What survives page loads of one tab (sessionStorage). */
export interface SessionState {
  id: string
  startedAt: number
  /** Last user activity: the idle timeout counts from here. */
  lastActivityAt: number
  /** Timestamp of the most recent event of the session (`session.lastActivityAt` in batches). */
  lastEventAt: number
  /** URL the session started on. */
  url: string
  /** Next `replay.sequence`; written before a batch is sent so a reload never reuses one. */
  nextSequence: number
  userId: string | null
  userProperties: Record<string, unknown> | null
  /** Decided when the session starts and kept for all its pages (sampling.ts). */
  sampling: SamplingMode
}

export interface SessionDeps {
  tab: KeyValueStore
  device: KeyValueStore
  now: () => number
  newId: () => string
  idleTimeoutMs: number
  /** Rolls the sampling mode of a new session; without it every session is recorded in full. */
  sample?: () => SamplingMode
}

function parseState(text: string | null): SessionState | null {
  if (!text) return null
  try {
    const value = JSON.parse(text) as Partial<SessionState>
    if (
      typeof value.id !== 'string' ||
      !value.id ||
      typeof value.startedAt !== 'number' ||
      typeof value.lastActivityAt !== 'number' ||
      typeof value.nextSequence !== 'number' ||
      !Number.isInteger(value.nextSequence) ||
      value.nextSequence < 0 ||
      typeof value.url !== 'string'
    )
      return null
    return {
      id: value.id,
      startedAt: value.startedAt,
      lastActivityAt: value.lastActivityAt,
      lastEventAt: typeof value.lastEventAt === 'number' ? value.lastEventAt : value.lastActivityAt,
      url: value.url,
      nextSequence: value.nextSequence,
      userId: typeof value.userId === 'string' ? value.userId : null,
      userProperties:
        typeof value.userProperties === 'object' && value.userProperties !== null
          ? value.userProperties
          : null,
      // A session stored by a recorder without sampling was being recorded in full.
      sampling: isSamplingMode(value.sampling) ? value.sampling : 'full',
    }
  } catch {
    return null
  }
}

/**
 * The tab's session: id, start, activity, sequence and identified user. A session ends after
 * `idleTimeoutMs` without user activity or on `stop()`; the next one gets a new id and starts
 * again at sequence 0. Window and anonymous ids outlive sessions.
 */
export class SessionManager {
  private window: string
  readonly anonymousId: string
  private state: SessionState

  /** The session found in storage that had already timed out: it still needs its final batch. */
  readonly expired: SessionState | null

  constructor(
    private readonly deps: SessionDeps,
    url: string,
  ) {
    this.window = deps.tab.getItem(WINDOW_KEY) || deps.newId()
    deps.tab.setItem(WINDOW_KEY, this.window)
    this.anonymousId = deps.device.getItem(ANONYMOUS_KEY) || deps.newId()
    deps.device.setItem(ANONYMOUS_KEY, this.anonymousId)

    const stored = parseState(deps.tab.getItem(SESSION_KEY))
    if (stored && !this.isIdleAt(stored, deps.now())) {
      this.state = stored
      this.expired = null
    } else {
      this.expired = stored
      this.state = this.fresh(url, stored)
      this.persist()
    }
  }

  get windowId(): string {
    return this.window
  }

  /**
   * This tab's storage was copied from another live tab: take a window id and a session of
   * our own, so the two tabs never send the same sequence of one session.
   */
  forkWindow(url: string): void {
    this.window = this.deps.newId()
    this.deps.tab.setItem(WINDOW_KEY, this.window)
    this.state = this.fresh(url, this.state)
    this.persist()
  }

  get current(): Readonly<SessionState> {
    return this.state
  }

  private fresh(url: string, previous: SessionState | null): SessionState {
    const now = this.deps.now()
    return {
      id: this.deps.newId(),
      startedAt: now,
      lastActivityAt: now,
      lastEventAt: now,
      url,
      nextSequence: 0,
      // The person behind the tab is still signed in after a pause: keep who they are.
      userId: previous?.userId ?? null,
      userProperties: previous?.userProperties ?? null,
      sampling: this.deps.sample?.() ?? 'full',
    }
  }

  private isIdleAt(state: SessionState, now: number): boolean {
    return now - state.lastActivityAt > this.deps.idleTimeoutMs
  }

  isIdle(): boolean {
    return this.isIdleAt(this.state, this.deps.now())
  }

  /** Records an event; `userActivity` events also push the idle deadline back. Not persisted here (hot path). */
  touch(timestamp: number, userActivity: boolean): void {
    if (timestamp > this.state.lastEventAt) this.state.lastEventAt = timestamp
    if (userActivity && timestamp > this.state.lastActivityAt) this.state.lastActivityAt = timestamp
  }

  /** Takes the next sequence number and persists the one after it before anything is sent. */
  reserveSequence(): number {
    const sequence = this.state.nextSequence
    this.state.nextSequence = sequence + 1
    this.persist()
    return sequence
  }

  identify(userId: string, properties: Record<string, unknown> | null): void {
    this.state.userId = userId
    this.state.userProperties = properties
    this.persist()
  }

  /**
   * An error-only session starts to upload: from now on it is recorded in full, also on its
   * later pages, and it starts where the uploaded buffer starts (its first event and page).
   */
  promoteToFull(startedAt: number, url: string): void {
    this.state.sampling = 'full'
    this.state.startedAt = startedAt
    this.state.url = url
    if (this.state.lastActivityAt < startedAt) this.state.lastActivityAt = startedAt
    if (this.state.lastEventAt < startedAt) this.state.lastEventAt = startedAt
    this.persist()
  }

  /** The session's first page as sent, when the page it started on must not be named (page-rules.ts). */
  renameStart(url: string): void {
    this.state.url = url
    this.persist()
  }

  /** Ends the current session and starts the next one; returns the ended session. */
  rotate(url: string): SessionState {
    const ended = this.state
    this.state = this.fresh(url, ended)
    this.persist()
    return ended
  }

  /** After `stop()`: the next init in this tab starts a new session. */
  end(): void {
    this.deps.tab.removeItem(SESSION_KEY)
  }

  persist(): void {
    this.deps.tab.setItem(SESSION_KEY, JSON.stringify(this.state))
  }
}
