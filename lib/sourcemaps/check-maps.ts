import { AnalysisStopped } from '@/lib/analysis-worker/pool'
import { formatSeconds, type SessionAnalysis } from '@/lib/analysis-worker/session-analysis'
import { InvalidInputError, PayloadTooLargeError } from '@/lib/errors'
import type { UploadFile } from './files'

/** A map that passed its check, with its bytes back from the worker and their SHA-256 (hex). */
export interface CheckedMapFile {
  path: string
  bytes: Buffer
  debugId: string | null
  /** Heap the worker needs to parse it (lib/symbolication/heap-estimate.ts), stored with its row. */
  heapEstimateBytes: number
  sha256: string
}

/**
 * The maps of an upload, in order, each checked (lib/symbolication/validate-map.ts) and hashed in
 * an analysis worker, within the analysis budget: parsing 50 MB of JSON on the request thread
 * would stall every other request for hundreds of milliseconds. The first map that fails
 * throws the refusal the uploader reads; so does one the worker ran over its budget on.
 * The `maps` given are moved to the worker: use the bytes yielded, not theirs.
 */
export async function* checkMapsInWorker(
  analysis: SessionAnalysis,
  maps: UploadFile[],
): AsyncGenerator<CheckedMapFile> {
  let current = 0
  try {
    for await (const { path, bytes, check } of analysis.pool.checkMaps(maps, analysis.budget)) {
      if (!check.ok) throw new InvalidInputError(check.error)
      yield {
        path,
        bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        debugId: check.debugId,
        heapEstimateBytes: check.heapEstimateBytes,
        sha256: check.sha256,
      }
      current++
    }
  } catch (error) {
    if (!(error instanceof AnalysisStopped)) throw error
    const path = maps[current]?.path ?? 'a source map'
    const { budget } = error
    if (error.stopCause === 'time')
      throw new InvalidInputError(
        `${path}: checking this source map took more than ${formatSeconds(budget.timeoutMs)} s (limit ANALYSIS_TIMEOUT_SECONDS); nothing was stored`,
      )
    if (error.stopCause === 'memory')
      throw new PayloadTooLargeError(
        `${path}: checking this source map needed more than ${budget.memoryMb} MB of memory (limit ANALYSIS_MEMORY_MB); nothing was stored`,
      )
    throw error
  }
}
