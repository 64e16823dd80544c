/// <reference lib="dom" />
import type { IWindow, listenerHandler, RecordPlugin } from '@rrweb/types'

/** The stock console plugin's name and payload shape (docs/design/analysis.md §1.7), so the analyser reads both. */
const CONSOLE_PLUGIN_NAME = 'rrweb/console@1'

export interface ConsolePayload {
  level: string
  /** One frame per entry, `fn (url:line:col)`; the recorder's own frames removed. */
  trace: string[]
  /** Each argument as capped JSON text (strings keep their quotes). */
  payload: string[]
}

export interface ConsoleCaptureOptions {
  levels: readonly string[]
  win?: Window
  /** Frames of the recorder's own script, dropped from traces. */
  isRecorderFrame?: (frame: string) => boolean
  maxBuffered?: number
  /** Entries per page at most; one warning says when the cap is reached. */
  maxEntries?: number
  maxStringLength?: number
  maxArgLength?: number
  maxArgs?: number
  maxFrames?: number
}

export type ConsoleCapture = RecordPlugin & { uninstall(): void }

type ConsoleMethod = (...args: unknown[]) => void

const V8_FRAME = /^\s*at\s+(?:(.+?)\s+\()?(.+?)\)?\s*$/
const GECKO_FRAME = /^\s*(.*?)@(.+?)\s*$/

function toFrame(line: string): string | null {
  const v8 = V8_FRAME.exec(line)
  if (v8) return v8[1] ? `${v8[1]} (${v8[2]})` : v8[2]!
  const gecko = GECKO_FRAME.exec(line)
  if (gecko) return gecko[1] ? `${gecko[1]} (${gecko[2]})` : gecko[2]!
  return null
}

/** Frames of a stack string, without its message line; `skip` drops the innermost ones. */
export function stackFrames(stack: string | undefined, skip: number): string[] {
  if (!stack) return []
  const frames: string[] = []
  for (const line of stack.split('\n')) {
    const frame = toFrame(line)
    if (frame && /[/:.]/.test(frame)) frames.push(frame)
  }
  return frames.slice(skip)
}

function cap(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

function describeNode(node: Node): string {
  if (node instanceof Element) {
    const id = node.id ? `#${node.id}` : ''
    const cls =
      typeof node.className === 'string' && node.className
        ? `.${node.className.trim().split(/\s+/).join('.')}`
        : ''
    return `<${node.tagName.toLowerCase()}${id}${cls}>`
  }
  return node.nodeName
}

/**
 * One argument as JSON text within limits: depth 3, 50 keys per object, capped strings,
 * circular references and DOM nodes named instead of walked. Never throws (getters can).
 */
export function stringifyArg(value: unknown, maxString: number, maxTotal: number): string {
  try {
    if (value === undefined) return 'undefined'
    if (typeof value === 'string') return JSON.stringify(cap(value, maxString))
    if (typeof value === 'function') return JSON.stringify(`function ${value.name || '(anonymous)'}`)
    if (typeof value === 'bigint' || typeof value === 'symbol') return JSON.stringify(String(value))
    if (value instanceof Error)
      return JSON.stringify(cap(value.stack || `${value.name}: ${value.message}`, maxString))
    const seen = new WeakSet<object>()
    const depth = new Map<object, number>()
    const text = JSON.stringify(value, function replacer(this: unknown, _key, v: unknown) {
      if (typeof v === 'string') return cap(v, maxString)
      if (typeof v === 'function') return `function ${v.name || '(anonymous)'}`
      if (typeof v === 'bigint' || typeof v === 'symbol') return String(v)
      if (typeof v !== 'object' || v === null) return v
      if (typeof Node !== 'undefined' && v instanceof Node) return describeNode(v)
      if (v instanceof Error) return cap(v.stack || `${v.name}: ${v.message}`, maxString)
      if (seen.has(v)) return '[Circular]'
      const level = (typeof this === 'object' && this !== null ? (depth.get(this) ?? 0) : 0) + 1
      if (level > 3) return Array.isArray(v) ? `[Array(${v.length})]` : '[Object]'
      seen.add(v)
      depth.set(v, level)
      if (Array.isArray(v)) return v.length > 50 ? [...v.slice(0, 50), `… ${v.length - 50} more`] : v
      const keys = Object.keys(v)
      if (keys.length <= 50) return v
      const trimmed: Record<string, unknown> = {}
      for (const key of keys.slice(0, 50)) trimmed[key] = (v as Record<string, unknown>)[key]
      trimmed['…'] = `${keys.length - 50} more keys`
      return trimmed
    })
    return cap(text ?? String(value), maxTotal)
  } catch {
    return JSON.stringify('[unserializable]')
  }
}

/**
 * Console capture installed at script start (the stock plugin starts only with rrweb, so a
 * boot-time console.error would be lost): entries are kept until rrweb records, then emitted in
 * the stock plugin's shape. Uncaught errors are left to the error capture, which marks them.
 */
export function installConsoleCapture(options: ConsoleCaptureOptions): ConsoleCapture {
  const win = options.win ?? window
  const maxBuffered = options.maxBuffered ?? 50
  const maxEntries = options.maxEntries ?? 500
  const maxString = options.maxStringLength ?? 1000
  const maxArg = options.maxArgLength ?? 4000
  const maxArgs = options.maxArgs ?? 10
  const maxFrames = options.maxFrames ?? 20
  const isRecorderFrame = options.isRecorderFrame ?? (() => false)
  const target = (win as Window & { console: Console }).console as unknown as Record<string, ConsoleMethod>
  const buffer: ConsolePayload[] = []
  const originals = new Map<string, ConsoleMethod>()
  let emit: ((payload: ConsolePayload) => void) | null = null
  let count = 0
  let inside = false

  const record = (level: string, args: unknown[], stack: string | undefined) => {
    count++
    if (count > maxEntries) return
    const payload: ConsolePayload =
      count === maxEntries
        ? {
            level: 'warn',
            trace: [],
            payload: [JSON.stringify('The number of console records reached the limit.')],
          }
        : {
            level,
            // Frame 0 is our wrapper; the rest of the recorder (by script URL) goes too.
            trace: stackFrames(stack, 1)
              .filter((frame) => !isRecorderFrame(frame))
              .slice(0, maxFrames),
            payload: args.slice(0, maxArgs).map((arg) => stringifyArg(arg, maxString, maxArg)),
          }
    if (emit) emit(payload)
    else if (buffer.length < maxBuffered) buffer.push(payload)
  }

  for (const level of options.levels) {
    const original = target[level]
    if (typeof original !== 'function') continue
    originals.set(level, original)
    target[level] = function consoleWrapper(this: unknown, ...args: unknown[]) {
      original.apply(this, args)
      if (level === 'assert' && args[0]) return
      // A console call made while serialising (a getter that logs) must not recurse.
      if (inside) return
      inside = true
      try {
        record(level, level === 'assert' ? args.slice(1) : args, new Error().stack)
      } catch {
        // Capture must never break the page's logging.
      } finally {
        inside = false
      }
    }
  }

  return {
    name: CONSOLE_PLUGIN_NAME,
    options: undefined,
    observer: (cb, observedWin: IWindow): listenerHandler => {
      if ((observedWin as Window) !== win) return () => {}
      const live = (payload: ConsolePayload) => cb(payload)
      emit = live
      for (const payload of buffer.splice(0)) live(payload)
      return () => {
        if (emit === live) emit = null
      }
    },
    uninstall: () => {
      for (const [level, original] of originals) target[level] = original
      emit = null
    },
  }
}
