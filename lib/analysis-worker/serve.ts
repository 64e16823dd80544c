import type { MessagePort } from 'node:worker_threads'
import { createAnalyzer } from '../analysis/analyzer'
import type { Analyzer, RrwebEvent } from '../analysis/types'
import type { FromWorker, ToWorker } from './protocol'

export interface ServeHooks {
  /** Runs before each batch is parsed; tests use it to hold the worker like a slow session would. */
  beforeBatch?(sequence: number): void
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
  const reply = (message: FromWorker) => port.postMessage(message)
  port.on('message', (message: ToWorker) => {
    try {
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
