import { InvalidInputError } from '@/lib/errors'
import { normalizeDebugId } from './comments'

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Checks that a map is one the symbolicator can read: JSON, an object with `version: 3`, a
 * string `mappings` and a `sources` array. Index maps (`sections`) are refused: bundlers
 * write them only when asked to, and a regular map per file is what frames are looked up in.
 * Answers the map's debug ID (`debugId` or `debug_id`), lowercase, or null.
 */
export function validateMap(path: string, bytes: Buffer): { debugId: string | null } {
  let map: unknown
  try {
    map = JSON.parse(utf8.decode(bytes))
  } catch {
    throw new InvalidInputError(`${path} is not valid JSON: a source map must be a JSON object`)
  }
  if (!map || typeof map !== 'object' || Array.isArray(map))
    throw new InvalidInputError(`${path} is not a source map: expected a JSON object`)
  const fields = map as Record<string, unknown>
  if (Object.hasOwn(fields, 'sections'))
    throw new InvalidInputError(
      `${path} is an index map (with sections), which is not supported: upload a regular map per file`,
    )
  if (fields.version !== 3)
    throw new InvalidInputError(`${path} is not a version 3 source map ("version": 3)`)
  if (typeof fields.mappings !== 'string') throw new InvalidInputError(`${path} has no "mappings" string`)
  if (!Array.isArray(fields.sources)) throw new InvalidInputError(`${path} has no "sources" array`)
  const raw = Object.hasOwn(fields, 'debugId') ? fields.debugId : fields.debug_id
  if (raw === undefined || raw === null) return { debugId: null }
  const debugId = typeof raw === 'string' ? normalizeDebugId(raw) : null
  if (!debugId) throw new InvalidInputError(`${path}: "debugId" must be a UUID`)
  return { debugId }
}
