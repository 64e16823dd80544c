/**
 * The rrweb 2.x numbers the analyser reads (docs/design/analysis.md §1.2–§1.5) and small readers for the
 * opaque `data` of stored events. Events come from browsers we do not control, so every field
 * is checked before use instead of trusting a declared shape.
 */

export const EventType = {
  DomContentLoaded: 0,
  Load: 1,
  FullSnapshot: 2,
  IncrementalSnapshot: 3,
  Meta: 4,
  Custom: 5,
  Plugin: 6,
} as const

export const Source = {
  Mutation: 0,
  MouseMove: 1,
  MouseInteraction: 2,
  Scroll: 3,
  ViewportResize: 4,
  Input: 5,
  TouchMove: 6,
  MediaInteraction: 7,
  StyleSheetRule: 8,
  CanvasMutation: 9,
  StyleDeclaration: 13,
  Selection: 14,
  AdoptedStyleSheet: 15,
} as const

export const Mouse = {
  MouseUp: 0,
  MouseDown: 1,
  Click: 2,
  DblClick: 4,
} as const

export const NodeType = {
  Document: 0,
  Element: 2,
  Text: 3,
} as const

export const CONSOLE_PLUGIN = 'rrweb/console@1'
export const NETWORK_PLUGIN = 'rrweb/network@1'

export type Obj = Record<string, unknown>

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}
