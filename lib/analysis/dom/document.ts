/**
 * The current document as an id → node map (docs/design/analysis.md §1.5): rebuilt at every FullSnapshot,
 * kept current from Mutation events. Memory follows the size of the live DOM, never the
 * length of the session, because removes drop whole subtrees.
 */
import {
  boundedStr,
  clip,
  MAX_ATTRIBUTE_CHARS,
  MAX_NAME_CHARS,
  MAX_STYLESHEET_CHARS,
  MAX_TEXT_CHARS,
} from '../bounds'
import { arr, isObj, NodeType, num, type Obj, str } from '../rrweb'
import { isSpaceAt, startsWithIgnoringCase } from '../scan'
import { PointerRules } from './css'

export interface DomNode {
  id: number
  type: number
  /** Lower-case tag name for elements, '' otherwise. */
  tag: string
  attrs: Record<string, string>
  parentId: number | null
  children: number[]
  /** Text content of text nodes. */
  text: string
}

/** An attribute value as kept: `_cssText` is a stylesheet and gets the stylesheet bound. */
function attrValue(name: string, value: unknown): string | null {
  if (typeof value === 'string')
    return clip(value, name === '_cssText' ? MAX_STYLESHEET_CHARS : MAX_ATTRIBUTE_CHARS)
  if (typeof value === 'number') return String(value)
  if (value === true) return ''
  return null
}

/**
 * End of the declaration of `name` that starts at `from` (right after the start or a `;`),
 * or -1: `\s*name\s*:[^;]*;?`, the name without case.
 */
function declarationEnd(style: string, name: string, from: number): number {
  let at = from
  while (isSpaceAt(style, at)) at++
  if (!startsWithIgnoringCase(style, name, at)) return -1
  at += name.length
  while (isSpaceAt(style, at)) at++
  if (style.charCodeAt(at) !== 58) return -1
  const semicolon = style.indexOf(';', at + 1)
  return semicolon < 0 ? style.length : semicolon + 1
}

/**
 * `style` without its first declaration of `name`, as
 * `style.replace(new RegExp(`(^|;)\\s*${name}\\s*:[^;]*;?`, 'i'), '$1')` did (`name` holds
 * only `[\w-]`). A scanner, because that pattern was built from event data.
 */
export function removeDeclaration(style: string, name: string): string {
  const first = declarationEnd(style, name, 0)
  if (first >= 0) return style.slice(first)
  for (let semicolon = style.indexOf(';'); semicolon >= 0; semicolon = style.indexOf(';', semicolon + 1)) {
    const end = declarationEnd(style, name, semicolon + 1)
    if (end >= 0) return style.slice(0, semicolon + 1) + style.slice(end)
  }
  return style
}

/** rrweb may send a `style` attribute change as a property diff instead of a string. */
function applyStyleDiff(current: string, diff: Obj): string {
  let style = current
  for (const [rawProp, value] of Object.entries(diff)) {
    const prop = clip(rawProp, MAX_NAME_CHARS)
    style = removeDeclaration(style, prop.replace(/[^\w-]/g, ''))
    const raw = typeof value === 'string' ? value : Array.isArray(value) ? str(value[0]) : null
    const text = raw === null ? null : clip(raw, MAX_ATTRIBUTE_CHARS)
    if (text !== null)
      style = `${style}${style && !style.trimEnd().endsWith(';') ? ';' : ''}${prop}: ${text};`
  }
  return clip(style, MAX_ATTRIBUTE_CHARS)
}

export class DocumentModel {
  readonly nodes = new Map<number, DomNode>()
  readonly pointer = new PointerRules()
  /** Increments at every FullSnapshot so node ids from two documents are never confused. */
  generation = 0

  loadSnapshot(root: unknown): void {
    this.nodes.clear()
    this.pointer.clear()
    this.generation++
    if (isObj(root)) this.addTree(root, null, null)
  }

  applyMutation(data: Obj): void {
    for (const remove of arr(data.removes)) {
      if (isObj(remove)) this.removeNode(num(remove.id))
    }
    for (const add of arr(data.adds)) {
      if (!isObj(add) || !isObj(add.node)) continue
      this.addTree(add.node, num(add.parentId), num(add.nextId))
    }
    for (const change of arr(data.texts)) {
      if (!isObj(change)) continue
      const node = this.nodes.get(num(change.id) ?? -1)
      if (!node) continue
      const value = str(change.value) ?? ''
      node.text = clip(value, MAX_TEXT_CHARS)
      if (node.parentId !== null && this.nodes.get(node.parentId)?.tag === 'style') this.pointer.addCss(value)
    }
    for (const change of arr(data.attributes)) {
      if (isObj(change) && isObj(change.attributes)) this.setAttributes(num(change.id), change.attributes)
    }
  }

  private setAttributes(id: number | null, attributes: Obj): void {
    const node = this.nodes.get(id ?? -1)
    if (!node) return
    for (const [rawName, value] of Object.entries(attributes)) {
      const name = clip(rawName, MAX_NAME_CHARS)
      if (name === 'style' && isObj(value)) {
        node.attrs.style = applyStyleDiff(node.attrs.style ?? '', value)
        continue
      }
      const text = attrValue(name, value)
      if (text === null) delete node.attrs[name]
      else node.attrs[name] = text
      if (name === '_cssText' && text) this.pointer.addCss(text)
    }
  }

  /** Adds a serialized node and any children it carries (FullSnapshot trees carry all). */
  private addTree(root: Obj, parentId: number | null, nextId: number | null): void {
    const stack: { node: Obj; parentId: number | null; nextId: number | null }[] = [
      { node: root, parentId, nextId },
    ]
    while (stack.length > 0) {
      const item = stack.pop()!
      const id = num(item.node.id)
      if (id === null) continue
      if (this.nodes.has(id)) this.removeNode(id)
      const node = this.createNode(id, item.node, item.parentId)
      this.nodes.set(id, node)
      const parent = item.parentId === null ? undefined : this.nodes.get(item.parentId)
      if (parent) {
        const at = item.nextId === null ? -1 : parent.children.indexOf(item.nextId)
        if (at >= 0) parent.children.splice(at, 0, id)
        else parent.children.push(id)
      }
      const children = arr(item.node.childNodes)
      // Pushed in reverse so they pop, and are appended, in document order.
      for (let i = children.length - 1; i >= 0; i--) {
        const child = children[i]
        if (isObj(child)) stack.push({ node: child, parentId: id, nextId: null })
      }
    }
  }

  private createNode(id: number, raw: Obj, parentId: number | null): DomNode {
    const type = num(raw.type) ?? -1
    const attrs: Record<string, string> = {}
    if (type === NodeType.Element && isObj(raw.attributes)) {
      for (const [name, value] of Object.entries(raw.attributes)) {
        const text = attrValue(name, value)
        if (text !== null) attrs[clip(name, MAX_NAME_CHARS)] = text
      }
      if (attrs._cssText) this.pointer.addCss(attrs._cssText)
    }
    const content = type === NodeType.Text ? (str(raw.textContent) ?? '') : ''
    if (raw.isStyle === true && content) this.pointer.addCss(content)
    const text = clip(content, MAX_TEXT_CHARS)
    const tag = type === NodeType.Element ? (boundedStr(raw.tagName, MAX_NAME_CHARS) ?? '').toLowerCase() : ''
    return { id, type, tag, attrs, parentId, children: [], text }
  }

  private removeNode(id: number | null): void {
    const node = this.nodes.get(id ?? -1)
    if (!node) return
    if (node.parentId !== null) {
      const siblings = this.nodes.get(node.parentId)?.children
      const at = siblings ? siblings.indexOf(node.id) : -1
      if (siblings && at >= 0) siblings.splice(at, 1)
    }
    const stack = [node.id]
    while (stack.length > 0) {
      const current = this.nodes.get(stack.pop()!)
      if (!current) continue
      this.nodes.delete(current.id)
      for (const child of current.children) stack.push(child)
    }
  }

  get(id: number): DomNode | undefined {
    return this.nodes.get(id)
  }

  parentOf(node: DomNode): DomNode | undefined {
    return node.parentId === null ? undefined : this.nodes.get(node.parentId)
  }
}
