/**
 * Element descriptors and selectors (docs/design/analysis.md §1.5, §4.4): what was clicked, described the
 * way Sentry does for people, plus a stable selector that survives class-name churn for
 * fingerprints.
 */
import { isDigitCode } from '../scan'
import type { ElementDescriptor } from '../types'
import type { DocumentModel, DomNode } from './document'
import { visibleText } from './text'

const TEXT_VALUE_INPUTS = new Set(['submit', 'button', 'reset'])

export function classesOf(node: DomNode): string[] {
  const raw = node.attrs.class
  return raw ? raw.split(/\s+/).filter(Boolean) : []
}

function attr(node: DomNode, name: string): string | null {
  const value = node.attrs[name]
  return value === undefined || value === '' ? null : value
}

function testIdOf(node: DomNode): string | null {
  return attr(node, 'data-testid') ?? attr(node, 'data-test-id') ?? attr(node, 'data-test')
}

function quoted(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

/** tag#id.class[role][aria-label][data-testid][title][alt], as Sentry's "Clicked Element". */
export function sentrySelector(node: DomNode): string {
  let selector = node.tag || 'unknown'
  const id = attr(node, 'id')
  if (id) selector += `#${id}`
  for (const name of classesOf(node)) selector += `.${name}`
  for (const [name, value] of [
    ['role', attr(node, 'role')],
    ['aria-label', attr(node, 'aria-label')],
    ['data-testid', testIdOf(node)],
    ['title', attr(node, 'title')],
    ['alt', attr(node, 'alt')],
  ] as const) {
    if (value) selector += `[${name}=${quoted(value)}]`
  }
  return selector.length > 300 ? selector.slice(0, 300) : selector
}

export function describeElement(doc: DocumentModel, node: DomNode): ElementDescriptor {
  const type = attr(node, 'type')?.toLowerCase() ?? null
  let text: string
  // Only button-like inputs show their value; any other input value is user data.
  if (node.tag === 'input') text = type && TEXT_VALUE_INPUTS.has(type) ? (attr(node, 'value') ?? '') : ''
  else if (node.tag === 'img') text = attr(node, 'alt') ?? ''
  else text = visibleText(doc, node, 100)
  return {
    tag: node.tag,
    id: attr(node, 'id'),
    classes: classesOf(node),
    role: attr(node, 'role'),
    ariaLabel: attr(node, 'aria-label'),
    testId: testIdOf(node),
    name: attr(node, 'name'),
    type,
    href: attr(node, 'href'),
    text: text.slice(0, 100),
    selector: sentrySelector(node),
  }
}

const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i

/** Ids a framework or a counter made up: they change between renders or sessions. */
export function isGeneratedId(id: string): boolean {
  if (id.includes(':') || UUID_RE.test(id) || /\d{3,}/.test(id)) return true
  if (id.split(/[-_.]/).some((part) => /^\d+$/.test(part))) return true
  if (/^[a-z]+\d{2,}$/i.test(id)) return true
  return hasLongHexRun(id)
}

function isHexCode(code: number): boolean {
  return isDigitCode(code) || (code >= 97 && code <= 102) || (code >= 65 && code <= 70)
}

/**
 * A run of 8 or more hex digits holding a decimal digit, what `/(?=[0-9a-f]*\d)[0-9a-f]{8,}/i`
 * found: that pattern's look-ahead re-read the rest of a long hex run from every start.
 */
function hasLongHexRun(text: string): boolean {
  let length = 0
  let digit = false
  for (let i = 0; i <= text.length; i++) {
    const code = text.charCodeAt(i)
    if (isHexCode(code)) {
      length++
      digit ||= isDigitCode(code)
      continue
    }
    if (length >= 8 && digit) return true
    length = 0
    digit = false
  }
  return false
}

const STATE_CLASS =
  /^(?:is-.*|has-.*|active|open|opened|selected|disabled|focus|focused|hover|loading|show|shown|visible|hidden|collapsed|expanded|checked|current)$/

/** CSS-in-JS hashes, utility classes with values, and state classes make poor identities. */
export function isGeneratedClass(name: string): boolean {
  if (/\d/.test(name) || /[:[\]/]/.test(name) || name.length > 40) return true
  if (/^(?:css|sc|jsx|emotion|svelte|astro)-/.test(name) || STATE_CLASS.test(name)) return true
  return /^[a-zA-Z]{5,8}$/.test(name) && (name.slice(1).match(/[A-Z]/g)?.length ?? 0) >= 2
}

/** `#id` for a hand-written id, else tag + identifying attributes + up to 3 stable classes. */
export function stableSelector(element: ElementDescriptor): string {
  if (element.id && !isGeneratedId(element.id)) return `#${element.id}`
  let selector = element.tag || 'unknown'
  for (const [name, value] of [
    ['data-testid', element.testId],
    ['name', element.name],
    ['aria-label', element.ariaLabel],
    ['role', element.role],
  ] as const) {
    if (value) selector += `[${name}=${quoted(value)}]`
  }
  const classes = element.classes.filter((name) => !isGeneratedClass(name)).sort()
  for (const name of classes.slice(0, 3)) selector += `.${name}`
  return selector
}

/** What a person calls the element: its text, else its accessible name, else its selector. */
export function elementLabel(element: ElementDescriptor): string {
  return element.text || element.ariaLabel || element.testId || element.name || ''
}
