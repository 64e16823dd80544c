import { createHash } from 'node:crypto'
import { type MessagePort, resourceLimits } from 'node:worker_threads'
import { createAnalyzer } from '../analysis/analyzer'
import type { Analyzer, RrwebEvent } from '../analysis/types'
import { checkMap } from '../sourcemaps/validate-map'
import { defaultMapCacheBytes, MapCache } from '../symbolication/map-cache'
import { type FrameLookup, type MapState, symbolicateLookups } from '../symbolication/symbolicate-frames'
import type { FromWorker, ToWorker } from './protocol'

export interface ServeHooks {
  /** Runs before each batch is parsed; tests use it to hold the worker like a slow session would. */
  beforeBatch?(sequence: number): void
  /**
   * Runs before a source map is parsed (a stored map by its blob key, an uploaded one by its
   * path); tests use it to hold the worker like a hostile map would.
   */
  beforeMapParse?(name: string): void
}

const decoder = new TextDecoder('utf-8')

function eventsOf(bytes: ArrayBuffer): RrwebEvent[] {
  const body: unknown = JSON.parse(decoder.decode(bytes))
  if (typeof body !== 'object' || body === null) return []
  const replay = (body as { replay?: unknown }).replay
  if (typeof replay !== 'object' || replay === null) return []
  const events = (replay as { events?: unknown }).events
  return Array.isArray(events) ? (events as RrwebEvent[]) : []
}

/**
 * The worker side: answers every message on `port` in order. Only this module and the
 * analyser run here, so nothing in the worker needs the database or the configuration.
 */
export function serveAnalysis(port: MessagePort, hooks: ServeHooks = {}): void {
  let analyzer: Analyzer | null = null
  // Parsed maps outlive sessions: the next session of a release needs the same ones.
  const maps = new MapCache({ maxBytes: defaultMapCacheBytes(resourceLimits.maxOldGenerationSizeMb) })
  // A symbolication waiting for the maps it asked for, with the cached maps it found: held
  // here, so that parsing the others cannot evict them from the cache meanwhile.
  let pending: { lookups: FrameLookup[]; held: Map<string, MapState> } | null = null
  const reply = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer)
  const symbolicated = (lookups: FrameLookup[], held: Map<string, MapState>) => {
    const mapFor = (blobKey: string): MapState => held.get(blobKey) ?? { failed: 'the map was not sent' }
    reply({ type: 'symbolicated', frames: symbolicateLookups(lookups, mapFor) })
  }
  port.on('message', (message: ToWorker) => {
    try {
      if (message.type === 'symbolicate') {
        const held = new Map<string, MapState>()
        const needed = new Set<string>()
        for (const lookup of message.lookups)
          for (const key of [lookup.mapKey, ...lookup.callers.map((caller) => caller.mapKey)]) {
            const cached = maps.get(key)
            if (cached) held.set(key, cached)
            else needed.add(key)
          }
        if (needed.size === 0) return symbolicated(message.lookups, held)
        pending = { lookups: message.lookups, held }
        return reply({ type: 'maps-needed', blobKeys: [...needed] })
      }
      if (message.type === 'map') {
        if (!pending) throw new Error('no symbolication begun')
        hooks.beforeMapParse?.(message.blobKey)
        const bytes = message.bytes ? new Uint8Array(message.bytes) : null
        pending.held.set(message.blobKey, maps.load(message.blobKey, bytes))
        return reply({ type: 'map-loaded', blobKey: message.blobKey })
      }
      if (message.type === 'maps') {
        const waiting = pending
        pending = null
        if (!waiting) throw new Error('no symbolication begun')
        // Held for this request too, not only cached: a map larger than the cache still serves it.
        for (const map of message.maps) {
          hooks.beforeMapParse?.(map.blobKey)
          waiting.held.set(map.blobKey, maps.load(map.blobKey, map.bytes ? new Uint8Array(map.bytes) : null))
        }
        return symbolicated(waiting.lookups, waiting.held)
      }
      if (message.type === 'check-map') {
        hooks.beforeMapParse?.(message.path)
        const bytes = new Uint8Array(message.bytes)
        const check = checkMap(message.path, bytes)
        // Hashed here for the content-addressed blob key: 20 MB would block the request thread too.
        const checked = check.ok
          ? { ...check, sha256: createHash('sha256').update(bytes).digest('hex') }
          : check
        return reply({ type: 'map-checked', bytes: message.bytes, check: checked }, [message.bytes])
      }
      if (message.type === 'begin') {
        analyzer = createAnalyzer(message.options)
        return
      }
      if (!analyzer) throw new Error('no analysis begun')
      if (message.type === 'batch') {
        hooks.beforeBatch?.(message.sequence)
        for (const event of eventsOf(message.bytes)) analyzer.push(event)
        reply({ type: 'batch-done', sequence: message.sequence })
        return
      }
      const result = analyzer.finish()
      analyzer = null
      reply({ type: 'result', result })
    } catch (error) {
      analyzer = null
      reply({
        type: 'failed',
        message: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      })
    }
  })
  reply({ type: 'ready' })
}
