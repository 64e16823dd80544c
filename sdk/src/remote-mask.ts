/**
 * Mask settings from the service: the ingest answer may carry `mask: { selectors }`, CSS
 * selectors an owner configured after finding something unmasked in stored replays
 * (docs/privacy.md#re-masking). The recorder adds them to rrweb's `maskTextSelector` and
 * restarts rrweb (a new full snapshot) so the leak stops from then on. The answer is read as
 * hostile: bounded, and anything malformed is ignored. Pure, so Node tests drive it.
 */

export const MAX_REMOTE_SELECTORS = 100
export const MAX_SELECTOR_LENGTH = 500
/** Selectors kept across changes at most; past it only the service's latest list is kept. */
const MAX_APPLIED = 2 * MAX_REMOTE_SELECTORS

/**
 * Brackets, parentheses and quotes closed, and no braces. The selectors are joined into one
 * list, and CSS closes whatever is open at the end of it: an open `:is(` would swallow every
 * selector after it.
 */
export function selfContained(selector: string): boolean {
  const open: string[] = []
  let quote: string | null = null
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i]!
    if (c === '\\') {
      i++
      continue
    }
    if (quote) {
      if (c === quote) quote = null
      continue
    }
    if (c === '"' || c === "'") quote = c
    else if (c === '(' || c === '[') open.push(c === '(' ? ')' : ']')
    else if (c === ')' || c === ']') {
      if (open.pop() !== c) return false
    } else if (c === '{' || c === '}' || c === ';') return false
  }
  return quote === null && open.length === 0 && !selector.endsWith('\\')
}

/**
 * The selectors an ingest answer asks to mask, or null when it asks nothing (no `mask`, or
 * not the expected shape). Each one is trimmed, bounded, self-contained and accepted by
 * `parses` (the browser's selector parser); the others are skipped.
 */
export function maskSelectorsOf(answer: unknown, parses: (selector: string) => boolean): string[] | null {
  if (typeof answer !== 'object' || answer === null) return null
  const mask = (answer as { mask?: unknown }).mask
  if (typeof mask !== 'object' || mask === null) return null
  const list = (mask as { selectors?: unknown }).selectors
  if (!Array.isArray(list)) return null
  const selectors: string[] = []
  for (const item of list.slice(0, MAX_REMOTE_SELECTORS)) {
    if (typeof item !== 'string' || item.length > MAX_SELECTOR_LENGTH) continue
    const selector = item.trim()
    if (selector === '' || selectors.includes(selector) || !selfContained(selector)) continue
    if (parses(selector)) selectors.push(selector)
  }
  return selectors
}

/** Whether the browser's selector parser takes `selector` (a throw means it does not). */
export function browserParses(doc: Document): (selector: string) => boolean {
  return (selector) => {
    try {
      doc.createDocumentFragment().querySelector(selector)
      return true
    } catch {
      return false
    }
  }
}

/**
 * Which service selectors rrweb applies. Selectors are only ever added while the page lives
 * (masking more than asked costs nothing; masking less could leak), so a restart happens only
 * when an answer brings one not yet applied, and an unchanged answer costs one string compare.
 */
export class RemoteMask {
  private lastAnswer = ''
  private applied: string[] = []

  get selectors(): readonly string[] {
    return this.applied
  }

  /** The selectors to apply from now on when `selectors` adds any; null when nothing changes. */
  update(selectors: readonly string[]): string[] | null {
    const joined = selectors.join('\n')
    if (joined === this.lastAnswer) return null
    this.lastAnswer = joined
    const added = selectors.filter((s) => !this.applied.includes(s))
    if (added.length === 0) return null
    const next = [...this.applied, ...added]
    this.applied = next.length > MAX_APPLIED ? [...selectors] : next
    return [...this.applied]
  }

  /** rrweb's `maskTextSelector`: the page's own, then the service's. */
  maskTextSelector(base: string): string {
    return this.applied.length === 0 ? base : `${base}, ${this.applied.join(', ')}`
  }
}
