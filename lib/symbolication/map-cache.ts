/**
 * Parsed source maps kept in the analysis worker between sessions. Keys are blob keys, which
 * are content-addressed: an entry never goes stale, it is only evicted for room. A map that
 * could not be parsed is remembered as failed for a while, so the frames of one session (or
 * the next sessions of a release) do not parse it again.
 */
import { LRUCache } from 'lru-cache'
import { MapRejected, type ParsedMap, parseSourceMap } from './parse-map'
import type { MapState } from './symbolicate-frames'

export interface MapCacheOptions {
  /** Total estimated heap of the cached maps (ParsedMap.heapBytes), in bytes. */
  maxBytes: number
  /** How long a map that failed to parse is not parsed again. */
  failedTtlMs?: number
}

/**
 * Default bound: 64 MB of parsed maps, and no more than a quarter of the worker's heap, which
 * session analysis needs too.
 */
export function defaultMapCacheBytes(heapMb: number | undefined): number {
  const cap = 64 * 1024 * 1024
  return heapMb ? Math.min(cap, Math.floor((heapMb * 1024 * 1024) / 4)) : cap
}

export class MapCache {
  private readonly parsed: LRUCache<string, ParsedMap>
  private readonly failed: LRUCache<string, string>

  constructor(options: MapCacheOptions) {
    this.parsed = new LRUCache<string, ParsedMap>({
      maxSize: options.maxBytes,
      // A map larger than the whole cache is used for its lookup and not kept.
      maxEntrySize: options.maxBytes,
      sizeCalculation: (map) => Math.max(1, map.heapBytes),
    })
    this.failed = new LRUCache<string, string>({ max: 1000, ttl: options.failedTtlMs ?? 5 * 60_000 })
  }

  /** The map under this key if it was parsed or failed before; undefined when it has to be read. */
  get(blobKey: string): MapState | undefined {
    const parsed = this.parsed.get(blobKey)
    if (parsed) return parsed
    const failed = this.failed.get(blobKey)
    return failed === undefined ? undefined : { failed }
  }

  /**
   * Parses a map's bytes (null: they could not be read) and keeps the outcome. Never throws:
   * what cannot be parsed is a failed state.
   */
  load(blobKey: string, bytes: Uint8Array | null): MapState {
    let state: MapState
    try {
      if (!bytes) state = { failed: 'the map could not be read from storage' }
      else {
        const parsed = parseSourceMap(bytes)
        this.parsed.set(blobKey, parsed)
        return parsed
      }
    } catch (error) {
      state = { failed: error instanceof MapRejected ? error.message : 'the map could not be parsed' }
    }
    // An unreadable blob may be there next time; a map that does not parse never will.
    if (bytes) this.failed.set(blobKey, state.failed)
    return state
  }

  /** Estimated heap of the maps held now. */
  get heldBytes(): number {
    return this.parsed.calculatedSize
  }

  get size(): number {
    return this.parsed.size
  }
}
