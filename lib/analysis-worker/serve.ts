import { createHash } from 'node:crypto'
import { type MessagePort, resourceLimits } from 'node:worker_threads'
import { createAnalyzer } from '../analysis/analyzer'
import type { Analyzer, RrwebEvent } from '../analysis/types'
import { defaultMapCacheBytes, MapCache } from '../symbolication/map-cache'
import { LookupResolver } from '../symbolication/symbolicate-frames'
import { checkMap } from '../symbolication/validate-map'
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

function batchOf(bytes: ArrayBuffer): { windowId: string | null; events: RrwebEvent[] } {
  const body: unknown = JSON.parse(decoder.decode(bytes))
  if (typeof body !== 'object' || body === null) return { windowId: null, events: [] }
  const session = (body as { session?: { windowId?: unknown } }).session
  // Ingest checked it: a stored batch names its window (tab).
  const windowId = typeof session?.windowId === 'string' ? session.windowId : null
  const replay = (body as { replay?: unknown }).replay
  if (typeof replay !== 'object' || replay === null) return { windowId, events: [] }
  const events = (replay as { events?: unknown }).events
  return { windowId, events: Array.isArray(events) ? (events as RrwebEvent[]) : [] }
}

/**
 * The worker side: answers every message on `port` in order. Only this module and the
 * analyser run here, so nothing in the worker needs the database or the configuration.
 */
export function serveAnalysis(port: MessagePort, hooks: ServeHooks = {}): void {
  let analyzer: Analyzer | null = null
  // Parsed maps outlive sessions: the next session of a release needs the same ones. The
  // cache is bounded by estimated heap; nothing else keeps a map past its turn.
  const maps = new MapCache({ maxBytes: defaultMapCacheBytes(resourceLimits.maxOldGenerationSizeMb) })
  // A symbolication waiting for the maps it asked for. Each map is applied as it arrives and
  // dropped (docs/source-maps.md, "Memory"): one map at a time is resident, however many a
  // session names, beside the cache.
  let pending: LookupResolver | null = null
  const reply = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer)
  const load = (resolver: LookupResolver, blobKey: string, bytes: ArrayBuffer | null) => {
    hooks.beforeMapParse?.(blobKey)
    resolver.apply(blobKey, maps.load(blobKey, bytes ? new Uint8Array(bytes) : null))
  }
  port.on('message', (message: ToWorker) => {
    try {
      if (message.type === 'symbolicate') {
        const resolver = new LookupResolver(message.lookups)
        const needed: string[] = []
        for (const key of resolver.mapKeys) {
          const cached = maps.get(key)
          if (cached) resolver.apply(key, cached)
          else needed.push(key)
        }
        if (needed.length === 0) return reply({ type: 'symbolicated', frames: resolver.result() })
        pending = resolver
        return reply({ type: 'maps-needed', blobKeys: needed })
      }
      if (message.type === 'map') {
        if (!pending) throw new Error('no symbolication begun')
        load(pending, message.blobKey, message.bytes)
        return reply({ type: 'map-loaded', blobKey: message.blobKey })
      }
      if (message.type === 'maps') {
        const waiting = pending
        pending = null
        if (!waiting) throw new Error('no symbolication begun')
        for (const map of message.maps) load(waiting, map.blobKey, map.bytes)
        return reply({ type: 'symbolicated', frames: waiting.result() })
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
        const batch = batchOf(message.bytes)
        if (batch.windowId !== null) analyzer.window?.(batch.windowId)
        for (const event of batch.events) analyzer.push(event)
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
