/**
 * Types of `@session-replay/sdk`, the package the service serves at `/sdk.tgz`
 * (`npm install https://YOUR-SERVICE/sdk.tgz`). The option types are sdk/src/options.ts's own
 * (the package carries `src/options.d.ts`, generated from it by scripts/build-sdk.mjs); these
 * declarations of the calls are checked against sdk/src/index.ts by tests/unit/sdk.declarations.test.ts.
 */
import type {
  Consent,
  ConsoleLevel,
  NetworkDetailsOptions,
  RecorderOptions,
  StorageMode,
  UrlPattern,
} from './src/options'

export type { Consent, ConsoleLevel, NetworkDetailsOptions, RecorderOptions, StorageMode, UrlPattern }

/**
 * Starts recording this page's session, or, with `consent: 'pending'` or `'denied'`, waits for
 * `setConsent('granted')`. Returns whether the options were taken; invalid options log one
 * `[session-replay]` console warning and nothing starts. Never throws.
 */
export declare function init(options: RecorderOptions): boolean

/**
 * Names the signed-in user for this and later batches of the session. `email` and `name` in
 * `properties` are shown in the dashboard.
 */
export declare function identify(userId: string, properties?: Record<string, unknown>): void

/**
 * Ends the session: the remaining events go with `flush: 'final'`, capture stops, and a later
 * `init()` starts a new session. Resolves once the final batch is delivered, or after 10 s.
 */
export declare function stop(): Promise<void>

/**
 * The visitor's answer, from the site's consent manager. `granted` starts recording as `init()`
 * would have; `denied` stops it at once, drops what was not sent, and removes every id the
 * recorder kept in this browser. Called before `init()`, the answer is remembered for it.
 */
export declare function setConsent(consent: 'granted' | 'denied'): void
