/**
 * Masked number fields, replayed as masked. The recorder masks a field's value into `*`s
 * (rrweb's maskInputValue; re-masking does the same), but a `type=number` input cannot hold
 * `***`: the browser empties it and logs "The specified value … cannot be parsed" each time the
 * replay sets it. Before the replay starts, every number input that is ever given a value that
 * is not a number becomes a text input, in the snapshots and mutations that create it and in
 * any attribute change that makes it a number input again, so the mask shows as recorded.
 *
 * Recorded events are hostile: the walk is iterative (no recursion a deep tree could overflow),
 * linear, and stops after MAX_NODES nodes; the test of a value is a linear regex on a bounded
 * string.
 */

const FULL_SNAPSHOT = 2
const INCREMENTAL = 3
const MUTATION = 0
const INPUT = 5
const ELEMENT_NODE = 2

/** Beyond this many serialized nodes the replay is left as recorded (warnings, no harm). */
export const MAX_NODES = 2_000_000
const MAX_NUMBER_LENGTH = 400

type Obj = Record<string, unknown>
const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null

// HTML's valid floating-point number (what a number input keeps); linear: no nested repetition.
const NUMBER = /^-?(?:\d+|\d*\.\d+)(?:[eE][-+]?\d+)?$/

/** True when a number input given `value` would drop it with a warning. */
export function unparseableNumber(value: unknown): boolean {
  if (typeof value !== 'string' || value === '') return false
  return value.length > MAX_NUMBER_LENGTH || !NUMBER.test(value)
}

const isNumberType = (type: unknown) => typeof type === 'string' && type.trim().toLowerCase() === 'number'

/** Every serialized element node of the events (snapshots and added nodes), up to MAX_NODES. */
function* elementNodes(events: readonly unknown[]): Generator<Obj> {
  let budget = MAX_NODES
  const stack: unknown[] = []
  for (const event of events) {
    if (!isObj(event) || !isObj(event.data)) continue
    const data = event.data
    if (event.type === FULL_SNAPSHOT) stack.push(data.node)
    else if (event.type === INCREMENTAL && data.source === MUTATION && Array.isArray(data.adds))
      for (const add of data.adds) if (isObj(add)) stack.push(add.node)
    while (stack.length > 0) {
      const node = stack.pop()
      if (!isObj(node)) continue
      if (--budget < 0) return
      if (node.type === ELEMENT_NODE) yield node
      if (Array.isArray(node.childNodes)) for (const child of node.childNodes) stack.push(child)
    }
  }
}

function attributeChanges(events: readonly unknown[]): Obj[] {
  const changes: Obj[] = []
  for (const event of events) {
    if (!isObj(event) || event.type !== INCREMENTAL || !isObj(event.data)) continue
    const { source, attributes } = event.data
    if (source !== MUTATION || !Array.isArray(attributes)) continue
    for (const change of attributes) if (isObj(change) && isObj(change.attributes)) changes.push(change)
  }
  return changes
}

/**
 * Rewrites `events` in place so number inputs holding a mask replay as text inputs; returns
 * how many elements and attribute changes were rewritten.
 */
export function maskedNumbersAsText(events: readonly unknown[]): number {
  const numberInputs = new Set<number>()
  const unparseable = new Set<number>()
  const elements: Obj[] = []
  for (const node of elementNodes(events)) {
    if (typeof node.id !== 'number' || node.tagName !== 'input' || !isObj(node.attributes)) continue
    elements.push(node)
    if (isNumberType(node.attributes.type)) numberInputs.add(node.id)
    if (unparseableNumber(node.attributes.value)) unparseable.add(node.id)
  }
  const changes = attributeChanges(events)
  for (const change of changes) {
    if (typeof change.id !== 'number') continue
    const attributes = change.attributes as Obj
    if (isNumberType(attributes.type)) numberInputs.add(change.id)
    if (unparseableNumber(attributes.value)) unparseable.add(change.id)
  }
  for (const event of events) {
    if (!isObj(event) || event.type !== INCREMENTAL || !isObj(event.data)) continue
    const { source, id, text } = event.data
    if (source === INPUT && typeof id === 'number' && unparseableNumber(text)) unparseable.add(id)
  }
  let rewritten = 0
  const rewrite = (id: unknown, attributes: Obj) => {
    if (typeof id !== 'number' || !isNumberType(attributes.type)) return
    if (!numberInputs.has(id) || !unparseable.has(id)) return
    attributes.type = 'text'
    rewritten++
  }
  for (const node of elements) rewrite(node.id, node.attributes as Obj)
  for (const change of changes) rewrite(change.id, change.attributes as Obj)
  return rewritten
}
