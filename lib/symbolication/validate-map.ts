import { normalizeDebugId } from './comments'
import { mapHeapEstimate } from './heap-estimate'
import { checkRegularMap, MapRejected } from './parse-map'

/**
 * What checking one uploaded map found: its debug ID and the heap symbolication will need to
 * parse it (lib/symbolication/heap-estimate.ts), or the refusal worded for the uploader.
 */
export type MapCheck =
  | { ok: true; debugId: string | null; heapEstimateBytes: number }
  | { ok: false; error: string }

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Checks that a map is one the symbolicator can read: JSON, an object with `version: 3`, a
 * string `mappings` and a `sources` array. Index maps (`sections`) are refused: bundlers
 * write them only when asked to, and a regular map per file is what frames are looked up in.
 * Answers the map's debug ID (`debugId` or `debug_id`), lowercase, or null, and its heap
 * estimate, from the numbers the mappings check counted: no second parse.
 *
 * Parsing up to 20 MB of JSON takes hundreds of milliseconds: this runs in an analysis worker
 * (lib/analysis-worker, `check-map`), never on the thread that answers requests. It answers
 * rather than throws, so that the worker needs nothing of lib/errors.
 */
export function checkMap(path: string, bytes: Uint8Array): MapCheck {
  let map: unknown
  try {
    map = JSON.parse(utf8.decode(bytes))
  } catch {
    return { ok: false, error: `${path} is not valid JSON: a source map must be a JSON object` }
  }
  if (!map || typeof map !== 'object' || Array.isArray(map))
    return { ok: false, error: `${path} is not a source map: expected a JSON object` }
  const fields = map as Record<string, unknown>
  if (Object.hasOwn(fields, 'sections'))
    return {
      ok: false,
      error: `${path} is an index map (with sections), which is not supported: upload a regular map per file`,
    }
  if (fields.version !== 3)
    return { ok: false, error: `${path} is not a version 3 source map ("version": 3)` }
  if (typeof fields.mappings !== 'string') return { ok: false, error: `${path} has no "mappings" string` }
  if (!Array.isArray(fields.sources)) return { ok: false, error: `${path} has no "sources" array` }
  let integers: number
  try {
    integers = checkRegularMap(fields)
  } catch (error) {
    if (!(error instanceof MapRejected)) throw error
    return { ok: false, error: `${path} cannot be used for symbolication: ${error.message}` }
  }
  const heapEstimateBytes = mapHeapEstimate(bytes.byteLength, integers)
  const raw = Object.hasOwn(fields, 'debugId') ? fields.debugId : fields.debug_id
  if (raw === undefined || raw === null) return { ok: true, debugId: null, heapEstimateBytes }
  const debugId = typeof raw === 'string' ? normalizeDebugId(raw) : null
  if (!debugId) return { ok: false, error: `${path}: "debugId" must be a UUID` }
  return { ok: true, debugId, heapEstimateBytes }
}
