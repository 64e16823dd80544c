import type { DbOrTx } from '@/db/client'
import {
  boundedStr,
  MAX_MESSAGE_CHARS,
  MAX_NAME_CHARS,
  MAX_SHORT_TEXT_CHARS,
  MAX_URL_CHARS,
} from '@/lib/analysis/bounds'
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
/** Captured details of one request (docs/network-details.md): headers listed, body length. */
export const MAX_LOG_HEADERS = 30
export const MAX_LOG_HEADER_NAME = 100
export const MAX_LOG_BODY = 4_000
/** Bodies up to this length are parsed to be shown pretty-printed; longer ones are shown as sent. */
const MAX_PRETTY_SOURCE = 16_384
/**
 * Characters of details in one log, all entries together: the log goes to the browser with
 * the page, so a session full of large bodies must not make the page megabytes long.
 */
export const MAX_LOG_DETAIL_CHARS = 200_000
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
  /** What the recorder captured besides (allowlisted URLs only); absent when nothing was. */
  details?: NetworkDetails
}

/** Headers as name/value pairs in the order sent; bodies as text, JSON pretty-printed. */
export interface NetworkDetails {
  requestHeaders: [string, string][]
  responseHeaders: [string, string][]
  requestBody: string | null
  responseBody: string | null
  /** Why a body was not captured, e.g. `content-type image/png`. */
  requestBodyOmitted: string | null
  responseBodyOmitted: string | null
}

export interface ReplayLog {
  console: ConsoleEntry[]
  network: NetworkEntry[]
  /** A list reached MAX_LOG_ENTRIES: later entries of a long session are left out. */
  truncated: { console: boolean; network: boolean }
  /** MAX_LOG_DETAIL_CHARS was reached: later requests are listed without their details. */
  detailsCut?: boolean
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

function headerPairs(value: unknown): [string, string][] {
  const pairs: [string, string][] = []
  if (!isObj(value)) return pairs
  for (const name in value) {
    if (pairs.length >= MAX_LOG_HEADERS) break
    const text = value[name]
    if (!Object.hasOwn(value, name) || typeof text !== 'string') continue
    pairs.push([oneLine(name, MAX_LOG_HEADER_NAME), oneLine(text, MAX_LOG_TEXT)])
  }
  return pairs
}

/**
 * Indenting a deeply nested value writes the depth in spaces on every line, quadratic in the
 * depth: past this one a body is shown as sent. Brackets inside strings count too, which only
 * errs towards showing it as sent.
 */
const MAX_PRETTY_DEPTH = 20

function shallow(text: string): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 0x7b || code === 0x5b) {
      if (++depth > MAX_PRETTY_DEPTH) return false
    } else if (code === 0x7d || code === 0x5d) depth--
  }
  return true
}

/** A body as shown: JSON indented when it parses, anything else as sent; cut with a marker. */
function bodyText(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null
  const text = truncate(value, MAX_PRETTY_SOURCE + 1)
  if (text.length <= MAX_PRETTY_SOURCE && shallow(text)) {
    try {
      const parsed: unknown = JSON.parse(text)
      if (typeof parsed === 'object' && parsed !== null)
        return truncate(JSON.stringify(parsed, null, 2), MAX_LOG_BODY)
    } catch {
      // Not JSON (or too deep to print again): shown as sent.
    }
  }
  return truncate(text, MAX_LOG_BODY)
}

function detailsOf(request: Obj): NetworkDetails | null {
  const details: NetworkDetails = {
    requestHeaders: headerPairs(request.requestHeaders),
    responseHeaders: headerPairs(request.responseHeaders),
    requestBody: bodyText(request.requestBody),
    responseBody: bodyText(request.responseBody),
    requestBodyOmitted: reason(request.requestBodyOmitted),
    responseBodyOmitted: reason(request.responseBodyOmitted),
  }
  const empty =
    details.requestHeaders.length === 0 &&
    details.responseHeaders.length === 0 &&
    details.requestBody === null &&
    details.responseBody === null &&
    details.requestBodyOmitted === null &&
    details.responseBodyOmitted === null
  return empty ? null : details
}

function reason(value: unknown): string | null {
  const text = boundedStr(value, MAX_LOG_TEXT * 2)
  return text ? oneLine(text, MAX_SHORT_TEXT_CHARS) : null
}

/** Characters the details add to the log, for MAX_LOG_DETAIL_CHARS. */
function detailChars(details: NetworkDetails): number {
  let chars = 0
  for (const [name, value] of [...details.requestHeaders, ...details.responseHeaders])
    chars += name.length + value.length
  for (const text of [
    details.requestBody,
    details.responseBody,
    details.requestBodyOmitted,
    details.responseBodyOmitted,
  ])
    chars += text?.length ?? 0
  return chars
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
  private detailChars = 0

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
        if (!isObj(request)) continue
        const entry = requestEntry(request, at)
        if (entry) this.network(entry, request)
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

  private network(entry: NetworkEntry, request: Obj): void {
    if (this.log.network.length >= MAX_LOG_ENTRIES) {
      this.log.truncated.network = true
      return
    }
    // Details are read only for listed entries, and only while the budget lasts.
    const details = this.log.detailsCut ? null : detailsOf(request)
    if (details) {
      this.detailChars += detailChars(details)
      if (this.detailChars > MAX_LOG_DETAIL_CHARS) this.log.detailsCut = true
      else entry.details = details
    }
    this.log.network.push(entry)
  }

  result(): ReplayLog {
    const byTime = (a: { at: number }, b: { at: number }) => a.at - b.at
    return {
      console: [...this.log.console].sort(byTime),
      network: [...this.log.network].sort(byTime),
      truncated: { ...this.log.truncated },
      ...(this.log.detailsCut ? { detailsCut: true } : {}),
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
