import { EventType, isObj, type Obj, Source } from '@/lib/analysis/rrweb'
import { maskPatternsIn } from './mask-patterns'
import type { MaskRules } from './mask-rules'
import { enterElement, type SelectorState } from './mask-selectors'

/**
 * The re-masking engine (docs/privacy.md#re-masking): rewrites rrweb events in place the way
 * the recorder would have recorded them had the rules been set, keeping every node id, event
 * and field so the replay still plays.
 *
 * Selectors: the masker keeps a mirror of the nodes it has seen (id → parent, tag, the
 * attributes selectors look at, match state) across the batches of a session, so a node a
 * later mutation adds under a matching element is masked too. Inside a matching element, text
 * nodes' characters become `*` (as rrweb's maskText does), value-like attributes are masked and
 * input events of its fields carry `*`s. Patterns: every string of every event — text,
 * attributes, input values, console arguments, network URLs, headers and bodies — has each
 * match replaced by `*`s.
 *
 * An element matches by the attributes it was added with and its own later attribute
 * mutations; a node keeps the masking it was added with when an ancestor changes later.
 */

/** Attributes that carry what a person typed or sees as text, masked on matching elements. */
const VALUE_ATTRIBUTES = new Set(['value', 'placeholder', 'title', 'alt', 'aria-label', 'aria-valuetext'])
/** Strings that name the structure rather than hold recorded content: patterns leave them alone. */
const STRUCTURAL_KEYS = new Set(['plugin', 'tagName'])

const NODE_DOCUMENT = 0
const NODE_ELEMENT = 2
const NODE_TEXT = 3
const NODE_COMMENT = 5

interface MirrorNode {
  parentId: number | null
  element: boolean
  tag: string
  /** Only the attributes some selector tests (id, class, named ones). */
  attributes: Record<string, unknown>
  state: SelectorState
  masked: boolean
}

export interface MaskCounts {
  /** Elements a selector matched. */
  elements: number
  /** Text nodes and text mutations masked inside them. */
  texts: number
  /** Value-like attributes masked inside them. */
  attributes: number
  /** Input events of their fields masked. */
  inputs: number
  /** Strings in which a pattern matched. */
  strings: number
}

export const emptyMaskCounts = (): MaskCounts => ({
  elements: 0,
  texts: 0,
  attributes: 0,
  inputs: 0,
  strings: 0,
})

const maskText = (text: string) => text.replace(/\S/g, '*')

export class EventMasker {
  readonly counts = emptyMaskCounts()
  private readonly nodes = new Map<number, MirrorNode>()
  private readonly watched: Set<string>

  constructor(private readonly rules: MaskRules) {
    this.watched = new Set(['id', 'class'])
    for (const complex of rules.selectors?.complexes ?? [])
      for (const compound of complex.compounds)
        for (const test of compound.attributes) this.watched.add(test.name)
  }

  /** Masks a batch's events in place (in order); whether anything changed. */
  maskEvents(events: unknown[]): boolean {
    const before = this.total()
    for (const event of events) if (isObj(event)) this.maskEvent(event)
    return this.total() !== before
  }

  private total(): number {
    const c = this.counts
    return c.elements + c.texts + c.attributes + c.inputs + c.strings
  }

  private maskEvent(event: Obj): void {
    if (this.rules.selectors) {
      const data = event.data
      if (isObj(data) && event.type === EventType.FullSnapshot) this.addTree(data.node, null)
      else if (isObj(data) && event.type === EventType.IncrementalSnapshot) {
        if (data.source === Source.Mutation) this.mutation(data)
        else if (data.source === Source.Input) this.input(data)
      }
    }
    if (this.rules.patterns.length > 0) this.maskStrings(event)
  }

  private addTree(root: unknown, parentId: number | null): void {
    const stack: [unknown, number | null][] = [[root, parentId]]
    while (stack.length > 0) {
      const [node, parent] = stack.pop()!
      if (!isObj(node) || typeof node.id !== 'number') continue
      const entry = this.enter(node, parent === null ? undefined : this.nodes.get(parent))
      this.nodes.set(node.id, { ...entry, parentId: parent })
      if (Array.isArray(node.childNodes))
        for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push([node.childNodes[i], node.id])
    }
  }

  /** Matches one serialized node under its parent's entry and masks what it holds. */
  private enter(node: Obj, parent: MirrorNode | undefined): Omit<MirrorNode, 'parentId'> {
    const parentState = parent?.state ?? null
    const parentMasked = parent?.masked ?? false
    if (node.type === NODE_ELEMENT && typeof node.tagName === 'string') {
      const attributes = isObj(node.attributes) ? node.attributes : {}
      const facts = { tag: node.tagName, attributes: this.watchedOf(attributes) }
      const { state, matched } = enterElement(this.rules.selectors!, parentState, facts)
      if (matched) this.counts.elements++
      const masked = parentMasked || matched
      if (masked) this.maskAttributes(attributes)
      return { element: true, tag: facts.tag, attributes: facts.attributes, state, masked }
    }
    if ((node.type === NODE_TEXT || node.type === NODE_COMMENT) && parentMasked && node.isStyle !== true) {
      if (typeof node.textContent === 'string' && node.textContent.trim() !== '') {
        node.textContent = maskText(node.textContent)
        this.counts.texts++
      }
    }
    // A document (an iframe's) starts its own tree; other nodes pass their parent's state on.
    const state = node.type === NODE_DOCUMENT ? null : parentState
    return { element: false, tag: '', attributes: {}, state, masked: parentMasked }
  }

  private watchedOf(attributes: Obj): Record<string, unknown> {
    const kept: Record<string, unknown> = {}
    for (const name of this.watched) if (Object.hasOwn(attributes, name)) kept[name] = attributes[name]
    return kept
  }

  private maskAttributes(attributes: Obj): void {
    for (const name of Object.keys(attributes)) {
      const value = attributes[name]
      if (VALUE_ATTRIBUTES.has(name.toLowerCase()) && typeof value === 'string' && value !== '') {
        attributes[name] = maskText(value)
        this.counts.attributes++
      }
    }
  }

  private mutation(data: Obj): void {
    if (Array.isArray(data.adds))
      for (const add of data.adds)
        if (isObj(add) && typeof add.parentId === 'number') this.addTree(add.node, add.parentId)
    if (Array.isArray(data.texts))
      for (const text of data.texts) {
        if (!isObj(text) || typeof text.id !== 'number' || typeof text.value !== 'string') continue
        const node = this.nodes.get(text.id)
        const parent = node?.parentId == null ? undefined : this.nodes.get(node.parentId)
        if ((node?.masked || parent?.masked) && text.value.trim() !== '') {
          text.value = maskText(text.value)
          this.counts.texts++
        }
      }
    if (Array.isArray(data.attributes))
      for (const change of data.attributes) {
        if (!isObj(change) || typeof change.id !== 'number' || !isObj(change.attributes)) continue
        const node = this.nodes.get(change.id)
        if (!node?.element) continue
        this.reenter(node, change.attributes)
        if (node.masked) this.maskAttributes(change.attributes)
      }
  }

  /** An element's own attributes changed: it is matched again (its descendants keep theirs). */
  private reenter(node: MirrorNode, changed: Obj): void {
    let touched = false
    for (const name of this.watched)
      if (Object.hasOwn(changed, name)) {
        node.attributes[name] = changed[name]
        touched = true
      }
    if (!touched) return
    const parent = node.parentId === null ? undefined : this.nodes.get(node.parentId)
    const facts = { tag: node.tag, attributes: node.attributes }
    const { state, matched } = enterElement(this.rules.selectors!, parent?.state ?? null, facts)
    if (matched && !node.masked) this.counts.elements++
    node.state = state
    node.masked = node.masked || (parent?.masked ?? false) || matched
  }

  private input(data: Obj): void {
    if (typeof data.id !== 'number' || typeof data.text !== 'string' || data.text === '') return
    if (!this.nodes.get(data.id)?.masked) return
    data.text = '*'.repeat(data.text.length)
    this.counts.inputs++
  }

  /** Every string value of the event, at any depth (an explicit stack: no recursion limit). */
  private maskStrings(root: Obj): void {
    const stack: unknown[] = [root]
    while (stack.length > 0) {
      const value = stack.pop()
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const item = value[i]
          if (typeof item === 'string') value[i] = this.maskString(item)
          else if (typeof item === 'object' && item !== null) stack.push(item)
        }
      } else if (isObj(value)) {
        for (const key of Object.keys(value)) {
          const item = value[key]
          if (typeof item === 'string') {
            if (!STRUCTURAL_KEYS.has(key)) value[key] = this.maskString(item)
          } else if (typeof item === 'object' && item !== null) stack.push(item)
        }
      }
    }
  }

  private maskString(text: string): string {
    const masked = maskPatternsIn(text, this.rules.patterns)
    if (masked !== text) this.counts.strings++
    return masked
  }
}

/**
 * Masks any JSON-like value's strings by the patterns (derived text: timeline entries,
 * evidence, digests); the value itself when nothing matched, else a masked copy.
 */
export function maskValue<T>(value: T, rules: MaskRules): { value: T; changed: number } {
  if (rules.patterns.length === 0 || value === null || value === undefined) return { value, changed: 0 }
  if (typeof value === 'string') {
    const masked = maskPatternsIn(value, rules.patterns)
    return { value: masked as T, changed: masked === value ? 0 : 1 }
  }
  if (typeof value !== 'object') return { value, changed: 0 }
  const holder = { value: structuredClone(value) }
  const masker = new EventMasker({ selectors: null, patterns: rules.patterns })
  masker.maskEvents([holder])
  return masker.counts.strings > 0
    ? { value: holder.value, changed: masker.counts.strings }
    : { value, changed: 0 }
}
