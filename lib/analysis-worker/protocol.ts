import type { AnalysisResult, AnalyzerOptions } from '../analysis/types'
import type { FrameLookup } from '../symbolication/symbolicate-frames'
import type { SymbolicatedFrame } from '../symbolication/types'

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
  /** The maps asked for: their JSON, transferred; null when storage had none. */
  | { type: 'maps'; maps: { blobKey: string; bytes: ArrayBuffer | null }[] }

export type FromWorker =
  /** Sent once, when the worker has loaded the analyser and listens: its start-up is not a session's time. */
  | { type: 'ready' }
  | { type: 'batch-done'; sequence: number }
  | { type: 'result'; result: AnalysisResult }
  /** The batch could not be parsed or the analyser threw; the worker stays usable. */
  | { type: 'failed'; message: string }
  | { type: 'maps-needed'; blobKeys: string[] }
  /** Every lookup's frame, by frameKey. */
  | { type: 'symbolicated'; frames: Record<string, SymbolicatedFrame> }
