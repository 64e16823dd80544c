import { isSamplingMode, type SamplingMode } from './sampling'
import type { KeyValueStore } from './storage'

export const SESSION_KEY = 'svc_replay:session'
export const WINDOW_KEY = 'svc_replay:window'
export const ANONYMOUS_KEY = 'svc_replay:anonymous_id'
/**
 * The visit's session as its tabs last wrote it (localStorage): a tab opened while the visit is
 * live joins it, and the tabs share its sequence counter and its last activity through it.
 */
export const VISIT_KEY = 'svc_replay:visit'

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
  /**
   * Whether a page of the session is still live (pages.ts heartbeats): only then does a new
   * tab join the visit. Without it every tab starts a session of its own.
   */
  liveVisit?: (sessionId: string) => boolean
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
 * again at sequence 0. Window and anonymous ids outlive sessions. A tab opened while another
 * tab's session is live joins it (one visit, several windows): see VISIT_KEY.
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
      const visit = this.visitOf(stored?.id)
      // Another tab of the visit may have sent batches after this one: its end takes the next number.
      if (stored && visit) stored.nextSequence = Math.max(stored.nextSequence, visit.nextSequence)
      this.expired = stored
      this.state = this.fresh(url, stored)
      this.persist()
    }
  }

  get windowId(): string {
    return this.window
  }

  /**
   * This tab's storage was copied from another live tab (duplicate, `window.open`): it is a tab
   * of the same visit, so it takes a window id of its own and keeps the session, whose
   * sequence the tabs share through the visit.
   */
  forkWindow(): void {
    this.window = this.deps.newId()
    this.deps.tab.setItem(WINDOW_KEY, this.window)
    this.persist()
  }

  get current(): Readonly<SessionState> {
    return this.state
  }

  /** The visit as stored, when it is the session `id`. */
  private visitOf(id: string | undefined): SessionState | null {
    if (!id) return null
    const visit = parseState(this.deps.device.getItem(VISIT_KEY))
    return visit?.id === id ? visit : null
  }

  /** A visit another tab keeps live, which a new session of this tab joins instead of starting one. */
  private joinableVisit(): SessionState | null {
    const visit = parseState(this.deps.device.getItem(VISIT_KEY))
    if (!visit || !this.deps.liveVisit?.(visit.id)) return null
    return this.isIdleAt(visit, this.deps.now()) ? null : visit
  }

  private fresh(url: string, previous: SessionState | null): SessionState {
    const joined = this.joinableVisit()
    if (joined && joined.id !== previous?.id) return joined
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
    if (now - state.lastActivityAt <= this.deps.idleTimeoutMs) return false
    // Activity in another tab of the visit keeps this one's session too (read only when idle).
    const visit = this.visitOf(state.id)
    return !visit || now - visit.lastActivityAt > this.deps.idleTimeoutMs
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
    // The visit's tabs share one counter: the next number after what any of them took.
    const visit = this.visitOf(this.state.id)
    const sequence = Math.max(this.state.nextSequence, visit?.nextSequence ?? 0)
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
    // The visit stays: the session's other tabs still take their sequence numbers from it.
    this.deps.tab.removeItem(SESSION_KEY)
  }

  persist(): void {
    this.deps.tab.setItem(SESSION_KEY, JSON.stringify(this.state))
    const visit = this.visitOf(this.state.id)
    const shared: SessionState = visit
      ? {
          ...this.state,
          nextSequence: Math.max(this.state.nextSequence, visit.nextSequence),
          lastActivityAt: Math.max(this.state.lastActivityAt, visit.lastActivityAt),
          lastEventAt: Math.max(this.state.lastEventAt, visit.lastEventAt),
          startedAt: Math.min(this.state.startedAt, visit.startedAt),
        }
      : this.state
    this.deps.device.setItem(VISIT_KEY, JSON.stringify(shared))
  }
}
