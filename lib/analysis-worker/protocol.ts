import type { SymbolicatedFrame } from '../analysis/frames'
import type { AnalysisResult, AnalyzerOptions } from '../analysis/types'
import type { FrameLookup } from '../symbolication/symbolicate-frames'
import type { MapCheck } from '../symbolication/validate-map'

/** An uploaded map's check (lib/symbolication/validate-map.ts), with its SHA-256 (hex) when it passed. */
export type CheckedMap =
  | Extract<MapCheck, { ok: false }>
  | (Extract<MapCheck, { ok: true }> & { sha256: string })

/**
 * The messages between the server thread and an analysis worker. The server thread only
 * reads stored batches; the worker decodes, parses and analyses them, one batch at a time.
 */
export type ToWorker =
  /** Starts a session's analysis; any state of an earlier session is dropped. */
  | { type: 'begin'; options: AnalyzerOptions }
  /** One stored batch's bytes as uploaded (JSON), transferred, not copied. */
  | { type: 'batch'; sequence: number; bytes: ArrayBuffer }
  | { type: 'finish' }
  /**
   * Resolves stack frames through source maps (docs/source-maps.md), between sessions' analyses.
   * The worker answers `maps-needed` with the maps it has not cached, or `symbolicated`.
   */
  | { type: 'symbolicate'; lookups: FrameLookup[] }
  /**
   * Ends a symbolication: any maps listed (their JSON, transferred; null when storage had none)
   * are parsed first, one after the other; the worker answers `symbolicated`. The pool sends
   * an empty list after the maps it sent one by one.
   */
  | { type: 'maps'; maps: { blobKey: string; bytes: ArrayBuffer | null }[] }
  /**
   * One map asked for, answered `map-loaded` once parsed and applied to every frame that needs
   * it, after which the worker keeps it only in its bounded cache: sent one per message, so
   * that one map at a time is resident and the server thread knows which map the worker was
   * parsing when it ran over its budget.
   */
  | { type: 'map'; blobKey: string; bytes: ArrayBuffer | null }
  /**
   * Checks one uploaded source map (docs/source-maps.md, "Where the upload's work runs"): its
   * JSON, transferred; the worker answers `map-checked` with the same bytes transferred back.
   */
  | { type: 'check-map'; path: string; bytes: ArrayBuffer }

export type FromWorker =
  /** Sent once, when the worker has loaded the analyser and listens: its start-up is not a session's time. */
  | { type: 'ready' }
  | { type: 'batch-done'; sequence: number }
  | { type: 'result'; result: AnalysisResult }
  /** The batch could not be parsed or the analyser threw; the worker stays usable. */
  | { type: 'failed'; message: string }
  | { type: 'maps-needed'; blobKeys: string[] }
  /** The map of a `map` message is parsed (or failed) and its frames resolved. */
  | { type: 'map-loaded'; blobKey: string }
  /** Every lookup's frame, by frameKey. */
  | { type: 'symbolicated'; frames: Record<string, SymbolicatedFrame> }
  /** The checked map's bytes, handed back (transferred) for storage, and what the check found. */
  | { type: 'map-checked'; bytes: ArrayBuffer; check: CheckedMap }
