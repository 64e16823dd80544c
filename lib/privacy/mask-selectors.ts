/**
 * CSS selectors an owner masks (docs/privacy.md#re-masking), matched on the server against
 * rrweb's serialized node tree, where there is no DOM. A practical subset: a tag or `*`,
 * `#id`, `.class`, `[attr]`, `[attr=value]` (value bare or quoted), the descendant (space)
 * and child (`>`) combinators and comma lists. Anything else — pseudo-classes, `+`, `~`,
 * `[attr^=…]` — is refused with a message, never half-understood.
 *
 * Matching is one pass down the tree: each node carries, per selector, which prefixes of it
 * match a chain ending there (bit sets), computed from its parent's. So a node costs
 * O(selectors × compounds) whatever the depth, and nodes added by later mutations are matched
 * against the same state.
 */

export const MAX_SELECTOR_CHARS = 200
/** Compounds in one selector (`a > b c` has three): each is one bit of a node's state. */
export const MAX_COMPOUNDS = 8

export class MaskSelectorError extends Error {
  override name = 'MaskSelectorError'
}

interface AttributeTest {
  name: string
  /** Null: the attribute only has to be present. */
  value: string | null
}

interface Compound {
  tag: string | null
  ids: string[]
  classes: string[]
  attributes: AttributeTest[]
}

interface Complex {
  compounds: Compound[]
  /** `child[i]`: compound i must be a child (not any descendant) of compound i-1's node. */
  child: boolean[]
}

export interface CompiledSelectors {
  complexes: Complex[]
}

const SUPPORTED =
  'supported: tag, *, #id, .class, [attr], [attr=value], descendant and > combinators, comma lists'

const isNameChar = (c: string) => /^[A-Za-z0-9_-]$/.test(c)

/** Parses one selector (possibly a comma list) into its complex selectors, or throws MaskSelectorError. */
export function parseMaskSelector(typed: string): Complex[] {
  if (typed.length > MAX_SELECTOR_CHARS)
    throw new MaskSelectorError(`A selector has at most ${MAX_SELECTOR_CHARS} characters`)
  let at = 0
  const fail = (what: string): never => {
    throw new MaskSelectorError(
      `Selector ${JSON.stringify(typed)}: ${what} at position ${at + 1} (${SUPPORTED})`,
    )
  }
  const skipSpace = () => {
    const start = at
    while (at < typed.length && (typed[at] === ' ' || typed[at] === '\t' || typed[at] === '\n')) at++
    return at > start
  }
  const name = (): string => {
    const start = at
    while (at < typed.length && isNameChar(typed[at]!)) at++
    if (at === start) fail('a name was expected')
    return typed.slice(start, at)
  }
  const attribute = (): AttributeTest => {
    at++ // [
    skipSpace()
    const attr = name().toLowerCase()
    skipSpace()
    let value: string | null = null
    if (typed[at] === '=') {
      at++
      skipSpace()
      const quote = typed[at]
      if (quote === '"' || quote === "'") {
        const end = typed.indexOf(quote, at + 1)
        if (end < 0) fail('an unclosed quote')
        value = typed.slice(at + 1, end)
        if (value.includes('\\')) fail('escapes in quoted values are not supported')
        at = end + 1
      } else value = name()
      skipSpace()
    }
    if (typed[at] !== ']') fail(`"]" was expected`)
    at++
    return { name: attr, value }
  }
  const compound = (): Compound => {
    const c: Compound = { tag: null, ids: [], classes: [], attributes: [] }
    const start = at
    if (typed[at] === '*') at++
    else if (at < typed.length && isNameChar(typed[at]!)) c.tag = name().toLowerCase()
    while (at < typed.length) {
      const ch = typed[at]
      if (ch === '#') {
        at++
        c.ids.push(name())
      } else if (ch === '.') {
        at++
        c.classes.push(name())
      } else if (ch === '[') c.attributes.push(attribute())
      else break
    }
    if (at === start)
      fail(at < typed.length ? `unsupported ${JSON.stringify(typed[at])}` : 'a selector was expected')
    return c
  }

  const complexes: Complex[] = []
  skipSpace()
  while (true) {
    const complex: Complex = { compounds: [compound()], child: [false] }
    while (true) {
      const spaced = skipSpace()
      if (at >= typed.length || typed[at] === ',') break
      let child = false
      if (typed[at] === '>') {
        child = true
        at++
        skipSpace()
      } else if (!spaced) fail(`unsupported ${JSON.stringify(typed[at])}`)
      complex.compounds.push(compound())
      complex.child.push(child)
      if (complex.compounds.length > MAX_COMPOUNDS) fail(`more than ${MAX_COMPOUNDS} parts in one selector`)
    }
    complexes.push(complex)
    if (at >= typed.length) break
    at++ // ,
    skipSpace()
  }
  return complexes
}

export function compileSelectors(selectors: readonly string[]): CompiledSelectors {
  return { complexes: selectors.flatMap(parseMaskSelector) }
}

/** An element as the matcher sees it: rrweb's tagName and attributes. */
export interface ElementFacts {
  tag: string
  attributes: Record<string, unknown>
}

/** A node's match state: per complex selector, the prefixes matched at it (S) and at it or above (A). */
export type SelectorState = Uint32Array | null

function attributeText(attributes: Record<string, unknown>, name: string): string | null {
  if (!Object.hasOwn(attributes, name)) return null
  const value = attributes[name]
  if (value === null || value === undefined || value === false) return null
  return typeof value === 'string'
    ? value
    : typeof value === 'number' || value === true
      ? String(value)
      : null
}

// The class list last split: every selector part with a class tests the same element's list in
// turn, so a recorded (hostile, megabyte-long) class attribute is split once, not once a test.
let splitList: string | null = null
let splitWords = new Set<string>()

function hasWord(list: string, word: string): boolean {
  if (list !== splitList) {
    splitWords = new Set(list.split(/\s+/))
    splitList = list
  }
  return splitWords.has(word)
}

function compoundMatches(c: Compound, el: ElementFacts): boolean {
  if (c.tag !== null && c.tag !== el.tag.toLowerCase()) return false
  for (const id of c.ids) if (attributeText(el.attributes, 'id') !== id) return false
  if (c.classes.length > 0) {
    const list = attributeText(el.attributes, 'class')
    if (list === null) return false
    for (const cls of c.classes) if (!hasWord(list, cls)) return false
  }
  for (const test of c.attributes) {
    const value = attributeText(el.attributes, test.name)
    if (value === null || (test.value !== null && value !== test.value)) return false
  }
  return true
}

/**
 * The state of an element whose parent has `parent` state, and whether any selector matches
 * it. Non-element nodes (documents, text) pass their parent's state on unchanged.
 */
export function enterElement(
  compiled: CompiledSelectors,
  parent: SelectorState,
  el: ElementFacts,
): { state: SelectorState; matched: boolean } {
  const n = compiled.complexes.length
  let state: Uint32Array | null = null
  let matched = false
  for (let j = 0; j < n; j++) {
    const complex = compiled.complexes[j]!
    const parentS = parent ? parent[j]! : 0
    const parentA = parent ? parent[n + j]! : 0
    let s = 0
    for (let i = 0; i < complex.compounds.length; i++) {
      const reachable = i === 0 || ((complex.child[i] ? parentS : parentA) & (1 << (i - 1))) !== 0
      if (reachable && compoundMatches(complex.compounds[i]!, el)) s |= 1 << i
    }
    if (s & (1 << (complex.compounds.length - 1))) matched = true
    if (s !== 0 || parentA !== 0) {
      state ??= new Uint32Array(2 * n)
      state[j] = s
      state[n + j] = s | parentA
    }
  }
  return { state, matched }
}
