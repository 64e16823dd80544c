/**
 * What a person calls a form field, for "typed 14 characters into Email" (docs/design/analysis.md §4.6):
 * its accessible name from aria-label, aria-labelledby or a label, else placeholder, name or id.
 * Never its value.
 */
import { truncate } from '../normalize'
import type { DocumentModel, DomNode } from './document'
import { visibleText } from './text'

function findById(doc: DocumentModel, id: string, attr: 'id' | 'for'): DomNode | null {
  // One pass over the live DOM, once per field: labels are not indexed to keep mutations cheap.
  for (const node of doc.nodes.values()) {
    if (node.attrs[attr] === id && (attr === 'id' || node.tag === 'label')) return node
  }
  return null
}

export function fieldLabel(doc: DocumentModel, field: DomNode): string {
  const aria = field.attrs['aria-label']?.trim()
  if (aria) return truncate(aria, 60)
  const labelledBy = field.attrs['aria-labelledby']?.split(/\s+/)[0]
  const byRef = labelledBy ? findById(doc, labelledBy, 'id') : null
  if (byRef) {
    const text = visibleText(doc, byRef, 60)
    if (text) return text
  }
  const id = field.attrs.id
  const label = id ? findById(doc, id, 'for') : null
  if (label) {
    const text = visibleText(doc, label, 60)
    if (text) return text
  }
  for (let node = doc.parentOf(field), depth = 0; node && depth < 5; node = doc.parentOf(node), depth++) {
    if (node.tag !== 'label') continue
    const text = visibleText(doc, node, 60)
    if (text) return text
  }
  const fallback = field.attrs.placeholder ?? field.attrs.name ?? id ?? field.attrs.type ?? field.tag
  return truncate(fallback || 'a field', 60)
}

export type FieldControl = 'text' | 'toggle' | 'select' | 'other'

export function fieldControl(field: DomNode): FieldControl {
  if (field.tag === 'select') return 'select'
  if (field.tag === 'textarea' || 'contenteditable' in field.attrs) return 'text'
  const type = (field.attrs.type ?? 'text').toLowerCase()
  if (type === 'checkbox' || type === 'radio') return 'toggle'
  if (['range', 'color', 'file', 'date', 'time', 'datetime-local', 'month', 'week'].includes(type))
    return 'other'
  return 'text'
}
