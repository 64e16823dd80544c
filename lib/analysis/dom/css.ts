/**
 * Which classes and ids the page's CSS gives `cursor: pointer` (docs/design/analysis.md §1.5): rrweb
 * inlines stylesheets as `_cssText`, so computed style is unknown and the rules are the only
 * hint that a `<div>` is meant to be clicked. Only the last compound selector of a rule counts
 * (`.card .cta:hover` marks `cta`), which is what decides the cursor over that element.
 */

import { clip, MAX_STYLESHEET_CHARS } from '../bounds'
import { isNameCode } from '../scan'

const MAX_NAMES = 5000
const POINTER_RE = /cursor\s*:\s*pointer/i

/** Position of the next `{` or `}` at or after `from`, or -1. */
function nextBrace(css: string, from: number): number {
  for (let i = from; i < css.length; i++) {
    const code = css.charCodeAt(i)
    if (code === 123 || code === 125) return i
  }
  return -1
}

/**
 * Calls `rule` for every innermost `selectors { body }` in order, the matches of
 * `/([^{}]+)\{([^{}]*)\}/g` found in one pass: that pattern retried every start of a long run
 * with no brace, which is quadratic. Every character is read at most twice, so a stylesheet
 * (cut to MAX_STYLESHEET_CHARS) needs no bound per rule.
 */
export function forEachRule(css: string, rule: (selectors: string, body: string) => void): void {
  let start = 0
  while (start < css.length) {
    const open = nextBrace(css, start)
    if (open < 0) return
    if (open > start && css.charCodeAt(open) === 123) {
      const close = nextBrace(css, open + 1)
      if (close < 0) return
      if (css.charCodeAt(close) === 125) {
        rule(css.slice(start, open), css.slice(open + 1, close))
        start = close + 1
        continue
      }
      // A nested block: its inner rule starts after this `{`.
      start = open + 1
      continue
    }
    start = open + 1
  }
}

/**
 * `selector` without pseudo-classes and pseudo-elements, as
 * `selector.replace(/::?[\w-]+(\([^)]*\))?/g, '')` did, in one pass (that pattern looked for
 * a `)` again after every `:name(`).
 */
export function stripPseudo(selector: string): string {
  let out = ''
  let copied = 0
  // The first `)` at or after `searched`: match positions only grow, so one search serves
  // every `(` before that `)` and the whole walk stays linear.
  let searched = -1
  let close = -1
  for (let colon = selector.indexOf(':'); colon >= 0; colon = selector.indexOf(':', colon + 1)) {
    const nameStart = colon + (selector.charCodeAt(colon + 1) === 58 ? 2 : 1)
    let end = nameEnd(selector, nameStart)
    if (end === nameStart) continue
    if (selector.charCodeAt(end) === 40) {
      if (searched < 0 || (close >= 0 && close <= end)) {
        searched = end + 1
        close = selector.indexOf(')', searched)
      }
      if (close >= 0) end = close + 1
    }
    out += selector.slice(copied, colon)
    copied = end
    colon = end - 1
  }
  return copied === 0 ? selector : out + selector.slice(copied)
}

/** End of the `[\w-]+` run starting at `from`. */
function nameEnd(text: string, from: number): number {
  let at = from
  while (at < text.length && isNameCode(text.charCodeAt(at))) at++
  return at
}

export class PointerRules {
  readonly classes = new Set<string>()
  readonly ids = new Set<string>()

  clear(): void {
    this.classes.clear()
    this.ids.clear()
  }

  /** Reads every rule whose declarations set `cursor: pointer`. */
  addCss(text: string): void {
    const css = clip(text, MAX_STYLESHEET_CHARS)
    if (!POINTER_RE.test(css)) return
    forEachRule(css, (selectors, body) => {
      if (!body || !POINTER_RE.test(body)) return
      for (const selector of selectors.split(',')) this.addSelector(selector)
    })
  }

  private addSelector(selector: string): void {
    const compounds = selector.trim().split(/\s*[\s>+~]\s*/)
    const last = compounds[compounds.length - 1] ?? ''
    // Pseudo-classes such as :hover still put the pointer over the element.
    const bare = stripPseudo(last)
    for (const token of bare.match(/[.#][\w-]+/g) ?? []) {
      const set = token.startsWith('.') ? this.classes : this.ids
      if (set.size < MAX_NAMES) set.add(token.slice(1))
    }
  }

  matches(classes: readonly string[], id: string | null): boolean {
    if (id && this.ids.has(id)) return true
    for (const name of classes) if (this.classes.has(name)) return true
    return false
  }
}
