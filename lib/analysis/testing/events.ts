/**
 * Builders for rrweb event sequences in the exact shapes of docs/design/analysis.md §1 (and of the real
 * recordings in tests/fixtures/recordings): for the analyser's unit tests and benchmarks.
 * Node ids are chosen by the caller so a test can click, mutate and assert by id.
 */
import type { RrwebEvent } from '../types'

export interface SerializedNode {
  type: number
  id: number
  tagName?: string
  attributes?: Record<string, string>
  childNodes?: SerializedNode[]
  textContent?: string
  /** rrweb marks the text of a `<style>` element. */
  isStyle?: boolean
}

export function el(
  id: number,
  tagName: string,
  attributes: Record<string, string> = {},
  childNodes: SerializedNode[] = [],
): SerializedNode {
  return { type: 2, id, tagName, attributes, childNodes }
}

export function txt(id: number, textContent: string): SerializedNode {
  return { type: 3, id, textContent }
}

/** A document with `<html>` (id 2), `<head>` (3) and `<body>` (4) around the given nodes. */
export function page(body: SerializedNode[], head: SerializedNode[] = []): SerializedNode {
  return {
    type: 0,
    id: 1,
    childNodes: [el(2, 'html', {}, [el(3, 'head', {}, head), el(4, 'body', {}, body)])],
  }
}

export interface RequestInit {
  url: string
  method?: string
  status: number
  initiatorType?: string
  error?: string
  /** Milliseconds the request took; it started that long before the event. */
  duration?: number
  /** Captured details (headers, bodies, omitted reasons; docs/network-details.md), sent as given. */
  details?: Record<string, unknown>
}

export class SessionBuilder {
  readonly events: RrwebEvent[] = []
  private time: number

  constructor(readonly start = 1_800_000_000_000) {
    this.time = start
  }

  get now(): number {
    return this.time
  }

  wait(ms: number): this {
    this.time += ms
    return this
  }

  emit(type: number, data: unknown, advance = 1): this {
    this.time += advance
    this.events.push({ type, timestamp: this.time, data })
    return this
  }

  /** A full page load in the order real recordings show: DCL, Meta, FullSnapshot, Load. */
  load(href: string, document: SerializedNode): this {
    return this.emit(0, {})
      .emit(4, { href, width: 1280, height: 720 })
      .emit(2, { node: document, initialOffset: { top: 0, left: 0 } })
      .emit(1, {})
  }

  /** A periodic checkout: Meta and FullSnapshot on the same URL. */
  checkout(href: string, document: SerializedNode): this {
    return this.emit(4, { href, width: 1280, height: 720 }).emit(2, {
      node: document,
      initialOffset: { top: 0, left: 0 },
    })
  }

  /** One physical click: MouseDown, MouseUp, Click (§1.4). */
  click(id: number, x = 100, y = 100): this {
    return this.emit(3, { source: 2, type: 1, id, x, y })
      .emit(3, { source: 2, type: 0, id, x, y }, 60)
      .emit(3, { source: 2, type: 2, id, x, y, pointerType: 0 })
  }

  dblclick(id: number, x = 100, y = 100): this {
    return this.emit(3, { source: 2, type: 4, id, x, y })
  }

  mutation(data: { adds?: unknown[]; removes?: unknown[]; texts?: unknown[]; attributes?: unknown[] }): this {
    return this.emit(3, { source: 0, adds: [], removes: [], texts: [], attributes: [], ...data })
  }

  text(id: number, value: string): this {
    return this.mutation({ texts: [{ id, value }] })
  }

  input(id: number, text: string, isChecked = false): this {
    return this.emit(3, { source: 5, text, isChecked, id })
  }

  /** Typing `value` one keystroke at a time, each event carrying the whole value (§1.6). */
  type(id: number, value: string, masked = true): this {
    for (let i = 1; i <= value.length; i++)
      this.input(id, masked ? '*'.repeat(i) : value.slice(0, i)).wait(60)
    return this
  }

  scroll(y: number): this {
    return this.emit(3, { source: 3, id: 1, x: 0, y })
  }

  selection(start: number, startOffset: number, end: number, endOffset: number): this {
    return this.emit(3, { source: 14, ranges: [{ start, startOffset, end, endOffset }] })
  }

  mouseMove(): this {
    return this.emit(3, { source: 1, positions: [{ x: 10, y: 10, id: 4, timeOffset: -50 }] })
  }

  console(level: string, args: unknown[], trace: string[] = []): this {
    const payload = args.map((arg) => JSON.stringify(arg))
    return this.emit(6, { plugin: 'rrweb/console@1', payload: { level, trace, payload } })
  }

  /** The stock console plugin's report of an uncaught error in Chromium (§1.7). */
  uncaught(message: string, trace: string[] = []): this {
    return this.console('error', [`Uncaught ${message}`], trace)
  }

  /** Our SDK's explicit uncaught-error event (§4.1). */
  sdkError(type: string, message: string, stack = '', mechanism = 'onerror'): this {
    return this.emit(5, {
      tag: 'error',
      payload: { type, message, stack, handled: false, mechanism, timestamp: this.time + 1 },
    })
  }

  navigate(href: string, from = ''): this {
    return this.emit(5, { tag: 'navigation', payload: { href, from, kind: 'push' } })
  }

  /** Our `rrweb/network@1` plugin event, emitted when the response arrives (§1.9). */
  request(init: RequestInit, isInitial = false): this {
    const duration = init.duration ?? 100
    const request = {
      name: init.url,
      url: init.url,
      method: init.method ?? 'GET',
      initiatorType: init.initiatorType ?? 'fetch',
      status: init.status,
      statusText: '',
      timestamp: this.time + 1 - duration,
      startTime: 1000,
      endTime: 1000 + duration,
      duration,
      ...(init.error ? { error: init.error } : {}),
      ...init.details,
    }
    return this.emit(6, {
      plugin: 'rrweb/network@1',
      payload: { requests: [request], ...(isInitial ? { isInitial } : {}) },
    })
  }
}
