/**
 * The role an element exposes to assistive technology and to role-based locators
 * (`getByRole`): its `role` attribute, else the implicit role HTML-AAM gives its tag. Only
 * roles that follow from the element itself are given; ones that depend on context (a `th`'s
 * neighbours, a `footer`'s ancestors) are left out rather than guessed.
 */
import type { DomNode } from './document'

const BY_TAG: Record<string, string> = {
  article: 'article',
  aside: 'complementary',
  button: 'button',
  datalist: 'listbox',
  details: 'group',
  dialog: 'dialog',
  fieldset: 'group',
  figure: 'figure',
  h1: 'heading',
  h2: 'heading',
  h3: 'heading',
  h4: 'heading',
  h5: 'heading',
  h6: 'heading',
  hr: 'separator',
  li: 'listitem',
  main: 'main',
  menu: 'list',
  meter: 'meter',
  nav: 'navigation',
  ol: 'list',
  optgroup: 'group',
  option: 'option',
  output: 'status',
  p: 'paragraph',
  progress: 'progressbar',
  table: 'table',
  tbody: 'rowgroup',
  td: 'cell',
  textarea: 'textbox',
  tfoot: 'rowgroup',
  thead: 'rowgroup',
  tr: 'row',
  ul: 'list',
}

const BY_INPUT_TYPE: Record<string, string> = {
  button: 'button',
  checkbox: 'checkbox',
  image: 'button',
  number: 'spinbutton',
  radio: 'radio',
  range: 'slider',
  reset: 'button',
  submit: 'button',
}

// Text-like inputs; `password` is not among them: ARIA gives it no role.
const TEXT_INPUTS = new Set(['', 'text', 'email', 'tel', 'url', 'search'])

function inputRole(node: DomNode): string | null {
  const type = (node.attrs.type ?? '').toLowerCase()
  if (TEXT_INPUTS.has(type)) {
    if (node.attrs.list) return 'combobox'
    return type === 'search' ? 'searchbox' : 'textbox'
  }
  return BY_INPUT_TYPE[type] ?? null
}

function implicitRole(node: DomNode): string | null {
  switch (node.tag) {
    case 'a':
    case 'area':
      return 'href' in node.attrs ? 'link' : null
    case 'input':
      return inputRole(node)
    case 'select': {
      const size = Number.parseInt(node.attrs.size ?? '', 10)
      return 'multiple' in node.attrs || size > 1 ? 'listbox' : 'combobox'
    }
    case 'img':
      return node.attrs.alt === '' ? 'presentation' : 'img'
    case 'section':
    case 'form':
      return node.attrs['aria-label'] || node.attrs['aria-labelledby']
        ? node.tag === 'form'
          ? 'form'
          : 'region'
        : null
    default:
      return Object.hasOwn(BY_TAG, node.tag) ? BY_TAG[node.tag]! : null
  }
}

/** The explicit role (its first token, as browsers read it), else the implicit one. */
export function roleOf(node: DomNode): string | null {
  const explicit = node.attrs.role?.trim().split(/\s+/)[0]?.toLowerCase()
  return explicit || implicitRole(node)
}
