/**
 * From the deepest clicked node to the element the user meant (docs/design/analysis.md §1.5, §4.3): the
 * nearest interactive ancestor or form control, else the nearest element that only looks
 * clickable, else the node itself. Also the element guards of the rage and dead detectors.
 */

import { NodeType } from '../rrweb'
import type { ElementDescriptor } from '../types'
import type { DocumentModel, DomNode } from './document'
import { classesOf, describeElement } from './element'

export type Interactivity = 'explicit' | 'looks' | null

export interface ClickTarget {
  node: DomNode
  element: ElementDescriptor
  interactivity: Interactivity
}

const BUTTON_INPUTS = new Set(['submit', 'button', 'image', 'reset'])
const INTERACTIVE_ROLES = new Set(['button', 'link', 'menuitem', 'tab', 'option'])
const CONTROL_TAGS = new Set(['input', 'select', 'textarea', 'label', 'option'])
const CONTROL_ROLES = new Set(['slider', 'spinbutton', 'switch', 'textbox', 'combobox', 'checkbox', 'radio'])
const MAX_DEPTH = 30

function typeOf(node: DomNode): string {
  return (node.attrs.type ?? '').toLowerCase()
}

function isExplicitlyInteractive(node: DomNode): boolean {
  if (node.tag === 'a') return 'href' in node.attrs
  if (node.tag === 'button' || node.tag === 'summary') return true
  if (node.tag === 'input' && BUTTON_INPUTS.has(typeOf(node))) return true
  const role = node.attrs.role?.toLowerCase()
  return (role !== undefined && INTERACTIVE_ROLES.has(role)) || 'onclick' in node.attrs
}

function isEditable(node: DomNode): boolean {
  const value = node.attrs.contenteditable
  return value !== undefined && value !== 'false'
}

function isControl(node: DomNode): boolean {
  const role = node.attrs.role?.toLowerCase()
  return CONTROL_TAGS.has(node.tag) || isEditable(node) || (role !== undefined && CONTROL_ROLES.has(role))
}

const CLICKY_TOKEN = /^(?:btn|button|cta|link|clickable)s?$/

export function looksInteractive(doc: DocumentModel, node: DomNode): boolean {
  const classes = classesOf(node)
  for (const name of classes) {
    // `card-cta`, `btn_primary`, `primaryButton`: any one token of the class name will do.
    const tokens = name
      .replace(/([a-z])([A-Z])/g, '$1-$2')
      .toLowerCase()
      .split(/[-_]+/)
    if (tokens.some((token) => CLICKY_TOKEN.test(token))) return true
  }
  if (/cursor\s*:\s*pointer/i.test(node.attrs.style ?? '')) return true
  return doc.pointer.matches(classes, node.attrs.id ?? null)
}

function isPageRoot(node: DomNode): boolean {
  return node.tag === 'html' || node.tag === 'body'
}

function climb(doc: DocumentModel, start: DomNode, test: (node: DomNode) => boolean): DomNode | null {
  let node: DomNode | undefined = start
  for (let depth = 0; node && depth < MAX_DEPTH; depth++) {
    if (node.type !== NodeType.Element || isPageRoot(node)) return null
    if (test(node)) return node
    node = doc.parentOf(node)
  }
  return null
}

export function resolveClickTarget(doc: DocumentModel, id: number): ClickTarget | null {
  let start = doc.get(id)
  if (start && start.type === NodeType.Text) start = doc.parentOf(start)
  if (!start || start.type !== NodeType.Element) return null
  const control = climb(doc, start, (node) => isExplicitlyInteractive(node) || isControl(node))
  if (control) {
    const interactivity = isExplicitlyInteractive(control) ? 'explicit' : null
    return { node: control, element: describeElement(doc, control), interactivity }
  }
  const looks = climb(doc, start, (node) => looksInteractive(doc, node))
  if (looks) return { node: looks, element: describeElement(doc, looks), interactivity: 'looks' }
  return { node: start, element: describeElement(doc, start), interactivity: null }
}

const TEXT_INPUT_TYPES = new Set(['', 'text', 'email', 'password', 'search', 'tel', 'url'])
const REPEAT_INPUT_TYPES = new Set([
  'range',
  'number',
  'checkbox',
  'radio',
  'file',
  'date',
  'datetime-local',
  'month',
  'week',
  'time',
  'color',
])
const REPEAT_ROLES = new Set(['slider', 'spinbutton', 'tab', 'switch'])
const STEPPER_TEXT = new Set(['+', '-', '−', '–', '‹', '›', '<', '>', '«', '»'])
const STEPPER_WORD = /^(?:next|prev|previous|more|less|increase|decrease|increment|decrement)\b/i

/** Why repeated clicks on this element are expected (§4.3 rage guards), or null. */
export function rageExclusion(node: DomNode, element: ElementDescriptor): string | null {
  if (isPageRoot(node)) return 'page'
  if (node.tag === 'textarea' || isEditable(node)) return 'text-input'
  if (node.tag === 'input')
    return TEXT_INPUT_TYPES.has(typeOf(node))
      ? 'text-input'
      : REPEAT_INPUT_TYPES.has(typeOf(node))
        ? 'input'
        : null
  if (node.tag === 'select' || node.tag === 'option') return 'select'
  if (node.tag === 'label') return 'label'
  const role = node.attrs.role?.toLowerCase()
  if (role !== undefined && REPEAT_ROLES.has(role)) return 'widget'
  const text = element.text.trim()
  const label = (element.ariaLabel ?? '').trim()
  if (STEPPER_TEXT.has(text) || STEPPER_WORD.test(text) || STEPPER_WORD.test(label)) return 'stepper'
  return null
}

/** Why a click on this element cannot be judged dead (§4.3 dead guards), or null. */
export function deadExclusion(node: DomNode): string | null {
  const target = node.attrs.target
  if (node.tag === 'a' && target !== undefined && target !== '' && target.toLowerCase() !== '_self')
    return 'new-window'
  if (node.tag === 'a' && 'download' in node.attrs) return 'download'
  // mailto:/tel: links hand over to another application; nothing changes in the page.
  if (node.tag === 'a' && /^(?:mailto|tel|sms):/i.test(node.attrs.href ?? '')) return 'external-app'
  if (node.tag === 'input' && typeOf(node) === 'file') return 'file-input'
  if ('disabled' in node.attrs || node.attrs['aria-disabled'] === 'true') return 'disabled'
  return null
}
