/**
 * The two reports of an uncaught error (docs/design/analysis.md §1.7, §4.1): the stock console plugin,
 * which gives it the shape of a console.error with Chromium's `Uncaught ` prefix (or the
 * opaque `Script error.`), and our SDK's explicit `error` custom event.
 */
import { boundedStr, MAX_MESSAGE_CHARS, MAX_NAME_CHARS } from '../bounds'
import { consoleArgText, stripUncaught, truncate } from '../normalize'
import { arr, num, type Obj } from '../rrweb'
import { type PositionedFrame, parsePositionedFrames, stackLines } from '../stack'

export interface RawError {
  /** The message without the `Uncaught ` prefix, type included (`TypeError: x`). */
  message: string
  frames: PositionedFrame[]
  trace: string[]
  source: 'console' | 'sdk'
  mechanism: string
}

export type ConsoleErrorEntry =
  | { kind: 'uncaught'; error: RawError }
  | { kind: 'console'; args: unknown[]; text: string; trace: string[] }

export function isScriptError(message: string): boolean {
  return message === 'Script error.' || message === 'Script error'
}

/** A console argument as readable text, cut to MAX_MESSAGE_CHARS before anything parses it. */
function consoleArgMessage(raw: unknown): string {
  return truncate(consoleArgText(raw), MAX_MESSAGE_CHARS)
}

/** A console plugin payload at level `error`, as an uncaught error or a console error. */
export function readConsoleError(payload: Obj): ConsoleErrorEntry | null {
  if (payload.level !== 'error') return null
  const args = arr(payload.payload)
  const text = consoleArgMessage(args[0] ?? '')
  const trace = stackLines(payload.trace)
  if (!/^Uncaught(?:\s|$)/.test(text) && !isScriptError(text)) return { kind: 'console', args, text, trace }
  // A rejection with a non-Error reason: the plugin passes the reason as a second argument.
  const reason = text === 'Uncaught (in promise)' && args.length > 1 ? consoleArgMessage(args[1]) : ''
  const message =
    truncate(stripUncaught(reason ? `${text} ${reason}` : text), MAX_MESSAGE_CHARS) || 'Unhandled rejection'
  const mechanism = text.startsWith('Uncaught (in promise)') ? 'onunhandledrejection' : 'onerror'
  return {
    kind: 'uncaught',
    error: { message, frames: parsePositionedFrames(trace), trace, source: 'console', mechanism },
  }
}

const MAX_BUFFERED_MS = 60_000

/** Our SDK's `error` event; handled errors are not uncaught and are left out. */
export function readSdkError(payload: Obj, at: number): { error: RawError; at: number } | null {
  if (payload.handled === true) return null
  const type = boundedStr(payload.type, MAX_NAME_CHARS) ?? 'Error'
  const raw = stripUncaught(
    typeof payload.message === 'string' ? truncate(payload.message, MAX_MESSAGE_CHARS) : '',
  )
  const message = truncate(
    isScriptError(raw) || raw.startsWith(type) ? raw : `${type}: ${raw}`,
    MAX_MESSAGE_CHARS,
  )
  const stack = typeof payload.stack === 'string' ? payload.stack : ''
  const mechanism = boundedStr(payload.mechanism, MAX_NAME_CHARS) ?? 'onerror'
  // Errors buffered before rrweb started carry the time they happened. The buffer holds
  // seconds, not hours: a time far from the event's own is not trusted (skewed or replayed).
  const happened = num(payload.timestamp)
  const trusted = happened !== null && happened <= at && at - happened <= MAX_BUFFERED_MS
  return {
    error: {
      message,
      frames: parsePositionedFrames(stack),
      trace: stackLines(stack).slice(0, 30),
      source: 'sdk',
      mechanism,
    },
    at: trusted ? happened : at,
  }
}
