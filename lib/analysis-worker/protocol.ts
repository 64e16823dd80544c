import type { AnalysisResult, AnalyzerOptions } from '../analysis/types'

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

export type FromWorker =
  /** Sent once, when the worker has loaded the analyser and listens: its start-up is not a session's time. */
  | { type: 'ready' }
  | { type: 'batch-done'; sequence: number }
  | { type: 'result'; result: AnalysisResult }
  /** The batch could not be parsed or the analyser threw; the worker stays usable. */
  | { type: 'failed'; message: string }
