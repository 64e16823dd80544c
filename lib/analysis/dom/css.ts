/**
 * Which classes and ids the page's CSS gives `cursor: pointer` (analysis.md §1.5): rrweb
 * inlines stylesheets as `_cssText`, so computed style is unknown and the rules are the only
 * hint that a `<div>` is meant to be clicked. Only the last compound selector of a rule counts
 * (`.card .cta:hover` marks `cta`), which is what decides the cursor over that element.
 */

const MAX_NAMES = 5000
const RULE_RE = /([^{}]+)\{([^{}]*)\}/g
const POINTER_RE = /cursor\s*:\s*pointer/i

export class PointerRules {
  readonly classes = new Set<string>()
  readonly ids = new Set<string>()

  clear(): void {
    this.classes.clear()
    this.ids.clear()
  }

  /** Reads every rule whose declarations set `cursor: pointer`. */
  addCss(css: string): void {
    if (!POINTER_RE.test(css)) return
    RULE_RE.lastIndex = 0
    for (let match = RULE_RE.exec(css); match; match = RULE_RE.exec(css)) {
      const [, selectors, body] = match
      if (!selectors || !body || !POINTER_RE.test(body)) continue
      for (const selector of selectors.split(',')) this.addSelector(selector)
    }
  }

  private addSelector(selector: string): void {
    const compounds = selector.trim().split(/\s*[\s>+~]\s*/)
    const last = compounds[compounds.length - 1] ?? ''
    // Pseudo-classes such as :hover still put the pointer over the element.
    const bare = last.replace(/::?[\w-]+(\([^)]*\))?/g, '')
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
