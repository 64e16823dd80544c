/// <reference lib="dom" />
import type { RecordPlugin } from '@rrweb/types'
import { type AddCustomEvent, createCustomEventQueue } from './custom-event-queue'

const ERROR_EVENT_TAG = 'error'

/**
 * Payload of the Custom event `{tag: 'error'}` (docs/design/analysis.md §4.1). The stock console plugin
 * reports uncaught errors with the same shape as `console.error` and with browser-specific
 * prefixes (`Uncaught `), so the analyser gets an explicit, browser-neutral marker from here.
 */
export interface UncaughtErrorPayload {
  /** Constructor name (`TypeError`), or `UnhandledRejection` when the reason is not an Error. */
  type: string
  /** The error's own message, without the `Uncaught ` prefix browsers add to event.message. */
  message: string
  /** The raw `error.stack` string (capped), empty when the browser gave none (`Script error.`). */
  stack: string
  handled: false
  mechanism: 'onerror' | 'onunhandledrejection'
  /** Epoch ms when the error happened; differs from the event timestamp for buffered errors. */
  timestamp: number
}

export interface ErrorCaptureOptions {
  /** rrweb's `record.addCustomEvent`. */
  addCustomEvent: AddCustomEvent
  win?: Window
  /** Errors kept before rrweb starts recording. */
  maxBuffered?: number
  /** Errors emitted per page at most, so an error in a render loop cannot flood the session. */
  maxErrors?: number
  maxStackLength?: number
  maxMessageLength?: number
  /**
   * Whether a stack line belongs to the recorder's own script. An error can pass through the
   * recorder's wrappers (fetch, history) on its way up; those frames would otherwise become the
   * "top in-app frame" the analyser groups by when the script is served from the page's site.
   */
  isRecorderFrame?: (line: string) => boolean
}

export interface ErrorCapture {
  /** Add to rrweb's `plugins`: it tells the capture when recording starts and stops. */
  plugin: RecordPlugin
  uninstall(): void
}

function cap(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

function describeReason(reason: unknown): { type: string; message: string; stack: string } {
  if (reason instanceof Error) {
    return { type: reason.name || 'Error', message: reason.message, stack: reason.stack ?? '' }
  }
  // Duck-typed too: errors thrown from another realm (iframe) fail `instanceof Error`.
  if (typeof reason === 'object' && reason !== null && 'message' in reason) {
    const r = reason as { name?: unknown; message?: unknown; stack?: unknown }
    return {
      type: typeof r.name === 'string' && r.name ? r.name : 'Error',
      message: String(r.message),
      stack: typeof r.stack === 'string' ? r.stack : '',
    }
  }
  let message: string
  try {
    message = typeof reason === 'string' ? reason : (JSON.stringify(reason) ?? String(reason))
  } catch {
    message = String(reason)
  }
  return { type: 'UnhandledRejection', message, stack: '' }
}

/**
 * Starts listening for uncaught errors and unhandled rejections immediately — call it at script
 * start, before rrweb is told to record — and emits each as a Custom event once rrweb records.
 */
export function installErrorCapture(options: ErrorCaptureOptions): ErrorCapture {
  const win = options.win ?? window
  const maxErrors = options.maxErrors ?? 50
  const maxStack = options.maxStackLength ?? 4000
  const maxMessage = options.maxMessageLength ?? 1000
  const isRecorderFrame = options.isRecorderFrame
  const cleanStack = (stack: string) =>
    isRecorderFrame
      ? stack
          .split('\n')
          .filter((line) => !isRecorderFrame(line))
          .join('\n')
      : stack
  const queue = createCustomEventQueue({
    name: 'sdk/errors',
    addCustomEvent: options.addCustomEvent,
    win,
    maxBuffered: options.maxBuffered ?? 20,
  })
  let emitted = 0

  const report = (
    described: { type: string; message: string; stack: string },
    mechanism: UncaughtErrorPayload['mechanism'],
  ) => {
    if (emitted >= maxErrors) return
    emitted++
    const payload: UncaughtErrorPayload = {
      type: described.type,
      message: cap(described.message, maxMessage),
      stack: cap(cleanStack(described.stack), maxStack),
      handled: false,
      mechanism,
      timestamp: Date.now(),
    }
    queue.push(ERROR_EVENT_TAG, payload)
  }

  const onError = (event: Event) => {
    // Failed <img>/<script> loads reach window listeners only in the capture phase and as plain
    // Events; this listener is bubble-phase and keeps to real script errors.
    if (!(event instanceof ErrorEvent)) return
    if (event.error !== undefined && event.error !== null) {
      report(describeReason(event.error), 'onerror')
      return
    }
    // Cross-origin scripts without CORS give only `Script error.` and no error object.
    const message = event.message.replace(/^Uncaught /, '')
    const typed = /^([A-Z][A-Za-z]*Error): (.*)$/s.exec(message)
    report(
      typed ? { type: typed[1]!, message: typed[2]!, stack: '' } : { type: 'Error', message, stack: '' },
      'onerror',
    )
  }

  const onRejection = (event: PromiseRejectionEvent) => {
    report(describeReason(event.reason), 'onunhandledrejection')
  }

  win.addEventListener('error', onError)
  win.addEventListener('unhandledrejection', onRejection)

  return {
    plugin: queue.plugin,
    uninstall: () => {
      win.removeEventListener('error', onError)
      win.removeEventListener('unhandledrejection', onRejection)
    },
  }
}
