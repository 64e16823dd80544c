/**
 * The per-tab part of a session's analysis (docs/session-processing.md#visits-across-tabs). A
 * visit may span several tabs (windows) of one browser: each has its own document, its own
 * current page and its own clicks and responses, while findings, counts, the digest and the
 * trail are the visit's. A page load in one tab is a page of the visit, never a reload of
 * another tab's page, and a click in one tab is never answered by a change in another.
 */
import { ClickLog, type Context } from './context'
import { DocumentModel } from './dom/document'
import { PageTracker } from './page'
import { ResponseLog } from './responses'

// Tabs of one visit kept apart; a batch of a further window is read as part of the tab before it.
export const MAX_TABS = 16

interface TabState {
  doc: DocumentModel
  page: PageTracker
  responses: ResponseLog
  clicks: ClickLog
}

export class Tabs {
  private readonly states = new Map<string, TabState>()
  private active: string | null = null
  private lastVisit = 0
  readonly nextVisit = (): number => ++this.lastVisit

  /** A fresh tab's state, numbering its page visits with the visit's others. */
  newState(): TabState {
    return {
      doc: new DocumentModel(),
      page: new PageTracker(this.nextVisit),
      responses: new ResponseLog(),
      clicks: new ClickLog(),
    }
  }

  /** The following events come from window `id`: its state becomes the context's. */
  switchTo(ctx: Context, id: string): void {
    if (id === this.active) return
    if (this.active === null) {
      // The first window keeps the state the context started with.
      this.active = id
      this.states.set(id, { doc: ctx.doc, page: ctx.page, responses: ctx.responses, clicks: ctx.clicks })
      return
    }
    let next = this.states.get(id)
    if (!next) {
      if (this.states.size >= MAX_TABS) return
      next = this.newState()
      this.states.set(id, next)
    }
    this.active = id
    ctx.doc = next.doc
    ctx.page = next.page
    ctx.responses = next.responses
    ctx.clicks = next.clicks
  }

  /** Every tab's page tracker (the context's alone before any window was named). */
  pages(ctx: Context): PageTracker[] {
    return this.states.size === 0 ? [ctx.page] : [...this.states.values()].map((state) => state.page)
  }
}
