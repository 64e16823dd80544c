import type { DbOrTx } from '@/db/client'
import { boundedStr, MAX_MESSAGE_CHARS, MAX_NAME_CHARS, MAX_URL_CHARS } from '@/lib/analysis/bounds'
import { collapseWhitespace, consoleArgText, stripUncaught, truncate } from '@/lib/analysis/normalize'
import { arr, CONSOLE_PLUGIN, EventType, isObj, NETWORK_PLUGIN, num, type Obj } from '@/lib/analysis/rrweb'
import type { RrwebEvent } from '@/lib/analysis/types'
import { displayUrl } from '@/lib/analysis/url'
import { getBlobStore } from '@/lib/storage'
import type { BlobStore } from '@/lib/storage/types'
import { readSessionEvents, type SessionBatchRef, sessionBatches } from './read-events'

/**
 * The console and network panes beside the replay: what the recorder's console and network
 * plugins (and the SDK's error event) captured, in time order. Everything here was written by
 * whoever holds the site's public ingest key, so each list and each text is capped; the page
 * renders them as text only.
 */

export const MAX_LOG_ENTRIES = 300
export const MAX_LOG_TEXT = 500
export const MAX_LOG_URL = 300
const MAX_CONSOLE_ARGS = 5
// The SDK's error event and the console plugin's "Uncaught ..." report one error twice.
const SAME_ERROR_MS = 1000

export interface ConsoleEntry {
  /** Epoch milliseconds. */
  at: number
  level: 'error' | 'warn' | 'info' | 'log' | 'debug'
  text: string
}

export interface NetworkEntry {
  /** Epoch milliseconds, when the answer (or the failure) came. */
  at: number
  method: string
  url: string
  /** 0: no response. */
  status: number
  durationMs: number | null
  failed: boolean
}

export interface ReplayLog {
  console: ConsoleEntry[]
  network: NetworkEntry[]
  /** A list reached MAX_LOG_ENTRIES: later entries of a long session are left out. */
  truncated: { console: boolean; network: boolean }
}

const LEVELS: Record<string, ConsoleEntry['level']> = {
  error: 'error',
  assert: 'error',
  warn: 'warn',
  info: 'info',
  log: 'log',
  debug: 'debug',
  trace: 'debug',
}

/** One line of readable text from attacker-written input, with a marker where it was cut. */
function oneLine(text: string, max: number): string {
  return truncate(collapseWhitespace(truncate(text, max * 2)), max)
}

function consoleText(payload: Obj): string {
  const args = arr(payload.payload).slice(0, MAX_CONSOLE_ARGS)
  // The plugin sends each argument as JSON text; anything else is not from it and not shown.
  const text = args
    .map((arg) => (typeof arg === 'string' ? consoleArgText(truncate(arg, MAX_MESSAGE_CHARS)) : '…'))
    .join(' ')
  return oneLine(text, MAX_LOG_TEXT)
}

function requestEntry(request: Obj, at: number): NetworkEntry | null {
  const url = boundedStr(request.url, MAX_URL_CHARS) ?? boundedStr(request.name, MAX_URL_CHARS)
  const status = num(request.status) ?? num(request.responseStatus)
  if (!url || status === null) return null
  const duration = num(request.duration)
  return {
    at,
    method: oneLine((boundedStr(request.method, MAX_NAME_CHARS) ?? 'GET').toUpperCase(), 12),
    url: oneLine(displayUrl(url), MAX_LOG_URL),
    status,
    durationMs: duration === null ? null : Math.max(0, Math.round(duration)),
    failed: status === 0 || status >= 400,
  }
}

/** Builds the log one event at a time; memory is bounded by the caps, not the session. */
class ReplayLogBuilder {
  private readonly log: ReplayLog = {
    console: [],
    network: [],
    truncated: { console: false, network: false },
  }

  /** Both lists are full: no later event can add anything. */
  get full(): boolean {
    return this.log.truncated.console && this.log.truncated.network
  }

  push(event: RrwebEvent): void {
    const at = num(event.timestamp)
    if (at === null || !isObj(event.data)) return
    const data = event.data
    const payload = isObj(data.payload) ? data.payload : {}
    if (event.type === EventType.Plugin && data.plugin === CONSOLE_PLUGIN) {
      const level = LEVELS[String(payload.level)] ?? 'log'
      this.console({ at, level, text: consoleText(payload) })
    } else if (event.type === EventType.Plugin && data.plugin === NETWORK_PLUGIN) {
      for (const request of arr(payload.requests)) {
        const entry = isObj(request) ? requestEntry(request, at) : null
        if (entry) this.network(entry)
      }
    } else if (event.type === EventType.Custom && data.tag === 'error' && payload.handled !== true) {
      const type = boundedStr(payload.type, MAX_NAME_CHARS) ?? 'Error'
      const message = stripUncaught(boundedStr(payload.message, MAX_MESSAGE_CHARS) ?? '')
      const text = message.startsWith(type) ? message : `${type}: ${message}`
      this.console({ at, level: 'error', text: oneLine(`Uncaught ${text}`, MAX_LOG_TEXT) })
    }
  }

  private console(entry: ConsoleEntry): void {
    const list = this.log.console
    const last = list[list.length - 1]
    if (last && last.text === entry.text && entry.at - last.at <= SAME_ERROR_MS) return
    if (list.length < MAX_LOG_ENTRIES) list.push(entry)
    else this.log.truncated.console = true
  }

  private network(entry: NetworkEntry): void {
    if (this.log.network.length < MAX_LOG_ENTRIES) this.log.network.push(entry)
    else this.log.truncated.network = true
  }

  result(): ReplayLog {
    const byTime = (a: { at: number }, b: { at: number }) => a.at - b.at
    return {
      console: [...this.log.console].sort(byTime),
      network: [...this.log.network].sort(byTime),
      truncated: { ...this.log.truncated },
    }
  }
}

export function replayLogOf(events: Iterable<RrwebEvent>): ReplayLog {
  const builder = new ReplayLogBuilder()
  for (const event of events) builder.push(event)
  return builder.result()
}

/**
 * A stored session's log, read batch by batch (one batch in memory at a time), stopping once
 * both lists are full. Null when the recording cannot be read (a batch missing from storage).
 */
export async function sessionReplayLog(
  blobs: BlobStore,
  batches: SessionBatchRef[],
): Promise<ReplayLog | null> {
  const builder = new ReplayLogBuilder()
  try {
    for await (const event of readSessionEvents(blobs, batches)) {
      builder.push(event)
      if (builder.full) break
    }
  } catch {
    return null
  }
  return builder.result()
}

/** The log of a session of the caller's organization (the caller checked that), from the app's blob store. */
export async function storedReplayLog(db: DbOrTx, sessionId: string): Promise<ReplayLog | null> {
  return sessionReplayLog(getBlobStore(), await sessionBatches(db, sessionId))
}
