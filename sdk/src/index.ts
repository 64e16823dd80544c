/// <reference lib="dom" />
/**
 * The browser recorder: `init()` once per page, as early as possible; `identify()` after sign-in;
 * `setConsent()` when the visitor answers; `stop()` to end the session. Nothing here throws into
 * the host page: a bad option or a missing browser feature logs one console warning and leaves
 * the page alone.
 */
import { ConsentGate, forgetDevice, isConsentAnswer } from './consent'
import { hasCrossOriginParent } from './cross-origin-frames'
import { startFrameRecorder } from './frame-recorder'
import { type RecorderOptions, type ResolvedOptions, resolveOptions } from './options'
import { type Recorder, type RecorderInternals, startRecorder } from './recorder'

export type { Consent, ConsoleLevel, RecorderOptions, StorageMode } from './options'

const PREFIX = '[session-replay]'
let stopping: Promise<void> | null = null
/** The recorder a stop() is still ending: a withdrawal meanwhile drops its final batch too. */
let ending: Recorder | null = null

interface Configured {
  options: ResolvedOptions
  internals: RecorderInternals
}

const gate = new ConsentGate<Configured, Recorder>({
  start: ({ options, internals }) => start(options, internals),
  forgetDevice: () => forgetDevice(window),
})

function warn(message: string): void {
  try {
    console.warn(`${PREFIX} ${message}`)
  } catch {
    // A page that replaced console with something broken still must not break.
  }
}

/** Internal entry of the standalone script, which knows its own URL. */
export function initWith(options: RecorderOptions, internals: RecorderInternals): boolean {
  try {
    if (typeof window === 'undefined' || typeof document === 'undefined') return false
    if (gate.configured) {
      warn('init() was called again; the recorder is already running (call stop() first)')
      return false
    }
    const resolved = resolveOptions(options)
    if (!resolved.ok) {
      warn(`not started: ${resolved.error}`)
      return false
    }
    gate.configure({ options: resolved.options, internals }, resolved.options.consent)
    return true
  } catch (error) {
    warn(`not started: ${error instanceof Error ? error.message : String(error)}`)
    return false
  }
}

function start(chosen: ResolvedOptions, internals: RecorderInternals): Recorder {
  const framed = chosen.recordCrossOriginIframes && hasCrossOriginParent(window)
  // Without parentOrigins a frame never relays: no parent origin is trusted with its recording.
  if (framed && chosen.parentOrigins.length === 0 && chosen.debug)
    warn('recordCrossOriginIframes in a frame without parentOrigins: this frame records its own session')
  return framed && chosen.parentOrigins.length > 0
    ? startFrameRecorder(chosen, internals, warn)
    : startRecorder(chosen, internals, warn)
}

/**
 * Starts recording this page's session, or, with `consent: 'pending'` or `'denied'`, waits for
 * `setConsent('granted')`. Returns whether the options were taken.
 */
export function init(options: RecorderOptions): boolean {
  // A separate chunk (esbuild code splitting): pages without networkDetails never load it.
  return initWith(options, {
    loadNetworkDetails: () => import('./network-details/capture').then((part) => part.createDetailCapturer),
  })
}

/**
 * Names the signed-in user for this and later batches of the session. `email` and `name` in
 * `properties` are shown in the dashboard.
 */
export function identify(userId: string, properties?: Record<string, unknown>): void {
  try {
    if (typeof userId !== 'string' || userId.trim() === '') {
      warn('identify() needs a non-empty user id string')
      return
    }
    if (
      properties !== undefined &&
      (typeof properties !== 'object' || properties === null || Array.isArray(properties))
    ) {
      warn('identify() properties must be a plain object')
      return
    }
    // Copied through JSON: what is sent is what the page passed now, not later mutations.
    const copy = properties ? (JSON.parse(JSON.stringify(properties)) as Record<string, unknown>) : null
    if (!gate.identify(userId, copy)) warn('identify() was called before init(); call init() first')
  } catch (error) {
    warn(`identify() failed: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/**
 * Ends the session: the remaining events go with `flush: 'final'` (processing starts at once),
 * capture stops, and a later `init()` starts a new session. Resolves once the final batch is
 * delivered, or after 10 s.
 */
export function stop(): Promise<void> {
  if (stopping) return stopping
  const recorder = gate.release()
  if (!recorder) return Promise.resolve()
  ending = recorder
  stopping = recorder
    .stop()
    .catch((error: unknown) =>
      warn(`stop() failed: ${error instanceof Error ? error.message : String(error)}`),
    )
    .finally(() => {
      stopping = null
      ending = null
    })
  return stopping
}

/**
 * The visitor's answer, from the site's consent manager (docs/privacy.md#consent). `granted`
 * starts recording as `init()` would have; `denied` stops it at once, drops what was not sent,
 * and removes every id the recorder kept in this browser. Called before `init()`, the answer
 * is remembered for it. A grant after a denial starts a new session with new ids.
 */
export function setConsent(consent: 'granted' | 'denied'): void {
  try {
    if (!isConsentAnswer(consent)) {
      warn('setConsent() takes "granted" or "denied"')
      return
    }
    if (consent === 'denied') ending?.discard()
    gate.answer(consent)
  } catch (error) {
    warn(`setConsent() failed: ${error instanceof Error ? error.message : String(error)}`)
  }
}
