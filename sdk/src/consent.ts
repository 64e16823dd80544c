/**
 * Consent (docs/privacy.md#consent): while the visitor's answer is pending or no, the recorder
 * starts nothing — no capture hooks, no rrweb, no request, no storage, not even the error-only
 * buffer in memory — so there is nothing to send or to forget later. A grant starts the recorder
 * as `init()` would have; a withdrawal drops it unsent and forgets every id it kept on the
 * device. Pure apart from `forgetDevice`, so Node tests drive the gate.
 */
import type { Consent } from './options'

/** Every key the recorder writes to Web Storage starts with this (session.ts, lease.ts, pages.ts, transport.ts). */
export const STORAGE_PREFIX = 'svc_replay:'

export type ConsentAnswer = Exclude<Consent, 'pending'>

export function isConsentAnswer(value: unknown): value is ConsentAnswer {
  return value === 'granted' || value === 'denied'
}

/** What the gate needs of a running recorder. */
export interface GatedRecorder {
  identify(userId: string, properties: Record<string, unknown> | null): void
  /** Stops at once: nothing more is sent, what is buffered or queued is dropped. */
  discard(): void
}

export interface ConsentGateDeps<Config, R extends GatedRecorder> {
  start(config: Config): R
  /** Removes every key of ours from the device's storage. */
  forgetDevice(): void
}

/**
 * The recorder's consent state. `configure` is `init()`; `answer` is `setConsent()`. An answer
 * given before `init()` is remembered and wins over the `consent` option: the consent manager
 * had already spoken when the page configured the recorder.
 */
export class ConsentGate<Config, R extends GatedRecorder> {
  private config: Config | null = null
  private recorder: R | null = null
  private answered: ConsentAnswer | null = null
  /** `identify()` while waiting for consent: kept in memory only, used on a grant, dropped on a denial. */
  private identity: { userId: string; properties: Record<string, unknown> | null } | null = null

  constructor(private readonly deps: ConsentGateDeps<Config, R>) {}

  get configured(): boolean {
    return this.config !== null
  }

  get running(): R | null {
    return this.recorder
  }

  /** `init()`: starts now when consent is granted, else waits (and forgets the device when denied). */
  configure(config: Config, consent: Consent): void {
    const effective = this.answered ?? consent
    // Before the configuration is kept: a start that throws leaves init() free to be called again.
    if (effective === 'granted') this.recorder = this.deps.start(config)
    else if (effective === 'denied') this.deps.forgetDevice()
    this.config = config
  }

  answer(consent: ConsentAnswer): void {
    this.answered = consent
    if (consent === 'granted') {
      if (this.recorder || !this.config) return
      this.recorder = this.deps.start(this.config)
      if (this.identity) this.recorder.identify(this.identity.userId, this.identity.properties)
      this.identity = null
      return
    }
    const recorder = this.recorder
    this.recorder = null
    this.identity = null
    recorder?.discard()
    // Also when nothing runs: an earlier page of the site may have stored our ids.
    this.deps.forgetDevice()
  }

  /** True when taken: passed to the running recorder, or held until a grant. */
  identify(userId: string, properties: Record<string, unknown> | null): boolean {
    if (this.recorder) this.recorder.identify(userId, properties)
    else if (this.config) this.identity = { userId, properties }
    else return false
    return true
  }

  /** `stop()`: the configuration is gone; returns the recorder that was running, for its final batch. */
  release(): R | null {
    const recorder = this.recorder
    this.recorder = null
    this.config = null
    this.identity = null
    return recorder
  }
}

/** Removes our keys from localStorage and sessionStorage; storage that cannot be reached holds nothing of ours either. */
export function forgetDevice(win: Window): void {
  for (const get of [() => win.localStorage, () => win.sessionStorage]) {
    try {
      const storage = get()
      const ours: string[] = []
      for (let i = 0; i < storage.length; i++) {
        const key = storage.key(i)
        if (key?.startsWith(STORAGE_PREFIX)) ours.push(key)
      }
      for (const key of ours) storage.removeItem(key)
    } catch {
      // Blocked or missing storage: the recorder kept its ids in memory there.
    }
  }
}
