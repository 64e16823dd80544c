/**
 * How a recorded element is found again (docs/reproduction.md): a test id first, then its role
 * and accessible name, then a form field's label, then short visible text, and the recorded
 * CSS selector last. Every locator ends in `.first()`: a page can repeat a name or a text,
 * and the user clicked one element, most likely the first such.
 */
import type { TrailTarget } from '@/lib/analysis/trail'
import { lit, wasCut, withoutCutMarker } from './code'

/** The roles `page.getByRole` accepts (Playwright's type), so the generated test type-checks. */
const PLAYWRIGHT_ROLES = new Set([
  'alert',
  'alertdialog',
  'application',
  'article',
  'banner',
  'blockquote',
  'button',
  'caption',
  'cell',
  'checkbox',
  'code',
  'columnheader',
  'combobox',
  'complementary',
  'contentinfo',
  'definition',
  'deletion',
  'dialog',
  'directory',
  'document',
  'emphasis',
  'feed',
  'figure',
  'form',
  'generic',
  'grid',
  'gridcell',
  'group',
  'heading',
  'img',
  'insertion',
  'link',
  'list',
  'listbox',
  'listitem',
  'log',
  'main',
  'marquee',
  'math',
  'meter',
  'menu',
  'menubar',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'navigation',
  'none',
  'note',
  'option',
  'paragraph',
  'presentation',
  'progressbar',
  'radio',
  'radiogroup',
  'region',
  'row',
  'rowgroup',
  'rowheader',
  'scrollbar',
  'search',
  'searchbox',
  'separator',
  'slider',
  'spinbutton',
  'status',
  'strong',
  'subscript',
  'superscript',
  'switch',
  'tab',
  'table',
  'tablist',
  'tabpanel',
  'term',
  'textbox',
  'time',
  'timer',
  'toolbar',
  'tooltip',
  'tree',
  'treegrid',
  'treeitem',
])

/** Visible text longer than this is more likely a container's content than a control's label. */
const SHORT_TEXT = 80
const FORM_TAGS = new Set(['input', 'textarea', 'select'])

export type LocatorKind = 'testId' | 'role' | 'label' | 'text' | 'css'

export interface Locator {
  /** An expression on `page`, e.g. `page.getByRole("button", { name: "Save", exact: true }).first()`. */
  code: string
  kind: LocatorKind
  /** The name or text it relies on was cut when recorded, so it matches by prefix. */
  partial: boolean
  /** The recorded attribute it finds the element by (a test id, a name, a text, a selector). */
  source: string
}

const present = (text: string | null | undefined): text is string => !!text && text.trim() !== ''

/** `exact` only for a whole text; a cut one is matched as a substring of its start. */
function nameOption(text: string): { literal: string; exact: boolean } {
  return { literal: lit(withoutCutMarker(text).trim()), exact: !wasCut(text) }
}

export function locatorFor(target: TrailTarget): Locator | null {
  if (present(target.testId)) {
    return {
      code: `page.getByTestId(${lit(target.testId)}).first()`,
      kind: 'testId',
      partial: false,
      source: target.testId,
    }
  }
  const role = target.role?.trim().toLowerCase() ?? ''
  if (PLAYWRIGHT_ROLES.has(role) && present(target.name)) {
    const name = nameOption(target.name)
    return {
      code: `page.getByRole(${lit(role)}, { name: ${name.literal}, exact: ${name.exact} }).first()`,
      kind: 'role',
      partial: !name.exact,
      source: target.name,
    }
  }
  // A password field has no ARIA role: its label is how a user finds it.
  if (FORM_TAGS.has(target.tag.toLowerCase()) && present(target.name)) {
    const name = nameOption(target.name)
    return {
      code: `page.getByLabel(${name.literal}, { exact: ${name.exact} }).first()`,
      kind: 'label',
      partial: !name.exact,
      source: target.name,
    }
  }
  if (present(target.text) && target.text.length <= SHORT_TEXT) {
    const text = nameOption(target.text)
    return {
      code: `page.getByText(${text.literal}, { exact: ${text.exact} }).first()`,
      kind: 'text',
      partial: !text.exact,
      source: target.text,
    }
  }
  if (present(target.selector) && !wasCut(target.selector)) {
    return {
      code: `page.locator(${lit(target.selector)}).first()`,
      kind: 'css',
      partial: false,
      source: target.selector,
    }
  }
  return null
}

/** A short human description of the element, for comments (already passed through commentText by callers). */
export function describeTarget(target: TrailTarget): string {
  const label = [target.name, target.text, target.testId, target.selector].find(present) ?? target.tag
  return `${target.role ?? target.tag} ${withoutCutMarker(label).trim()}`
}
