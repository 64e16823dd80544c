/**
 * Visible text of a subtree, as a person would read it on the element (docs/design/analysis.md §1.5):
 * hidden subtrees and non-rendered elements skipped, whitespace collapsed, capped.
 */
import { collapseWhitespace } from '../normalize'
import { NodeType } from '../rrweb'
import type { DocumentModel, DomNode } from './document'

const SKIP_TAGS = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'select'])
const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'section',
  'table',
  'td',
  'th',
  'tr',
  'ul',
])
// Large containers are walked only this far: their text is not a label anyway.
const MAX_VISITS = 1000

function isHidden(node: DomNode): boolean {
  return (
    'hidden' in node.attrs ||
    node.attrs['aria-hidden'] === 'true' ||
    /display\s*:\s*none/i.test(node.attrs.style ?? '')
  )
}

export function visibleText(doc: DocumentModel, root: DomNode, max = 100): string {
  let out = ''
  let visits = 0
  const stack: (DomNode | ' ')[] = [root]
  while (stack.length > 0 && visits < MAX_VISITS && out.length < max * 3) {
    const item = stack.pop()!
    if (item === ' ') {
      out += ' '
      continue
    }
    visits++
    if (item.type === NodeType.Text) {
      out += item.text
      continue
    }
    if (item.type !== NodeType.Element || SKIP_TAGS.has(item.tag) || (item !== root && isHidden(item)))
      continue
    const block = BLOCK_TAGS.has(item.tag)
    if (block) stack.push(' ')
    for (let i = item.children.length - 1; i >= 0; i--) {
      const child = doc.get(item.children[i]!)
      if (child) stack.push(child)
    }
    if (block) stack.push(' ')
  }
  return collapseWhitespace(out).slice(0, max).trim()
}
