/**
 * One streaming pass over a session's rrweb events (docs/design/analysis.md §4.2). Events are pushed in
 * order; detectors with a time window are flushed when an event passes their deadline, so
 * nothing waits on the wall clock and nothing keeps the session.
 */
import { UserActions } from './actions'
import { boundedStr, MAX_URL_CHARS } from './bounds'
import type { Context } from './context'
import { DeadDetector } from './detectors/dead'
import { ErrorDetector } from './detectors/errors'
import { NetworkDetector } from './detectors/network'
import { RageDetector } from './detectors/rage'
import { DigestBuilder } from './digest'
import { FindingStore } from './findings'
import type { PageChange } from './page'
import { FailureLog } from './reported-failures'
import { arr, CONSOLE_PLUGIN, EventType, isObj, Mouse, NETWORK_PLUGIN, type Obj, Source } from './rrweb'
import { makeStorable } from './storable'
import { Tabs } from './tabs'
import { Timeline } from './timeline'
import { TrailRecorder } from './trail-recorder'
import type { AnalysisResult, Analyzer, AnalyzerOptions, RrwebEvent } from './types'

// Sources after which the page visibly changed (§4.3 "response"); Input and Selection are
// handled on their own, Scroll counts only right after a click.
const RESPONSE_SOURCES = new Set<number>([
  Source.MediaInteraction,
  Source.StyleSheetRule,
  Source.CanvasMutation,
  Source.StyleDeclaration,
  Source.AdoptedStyleSheet,
])

class SessionAnalyzer implements Analyzer {
  private readonly ctx: Context
  private readonly errors: ErrorDetector
  private readonly network: NetworkDetector
  private readonly rage: RageDetector
  private readonly dead: DeadDetector
  private seq = 0
  private eventCount = 0
  private first = Number.NaN
  private last = Number.NaN
  private deadline = Number.POSITIVE_INFINITY
  private finished = false
  private readonly actions: UserActions
  private readonly latestAt: number
  private readonly tabs = new Tabs()

  constructor(options: AnalyzerOptions) {
    this.latestAt = options.latestAt ?? Number.POSITIVE_INFINITY
    const store = new FindingStore()
    const timeline = new Timeline()
    this.ctx = {
      options,
      ...this.tabs.newState(),
      timeline,
      store,
      digest: new DigestBuilder(),
      trail: new TrailRecorder(),
      failures: new FailureLog(),
      sessionStart: 0,
      report: (problem) =>
        store.add(problem, () =>
          timeline.steps(problem.seq, problem.failure, problem.at, this.ctx.sessionStart, problem.page.url),
        ),
    }
    this.errors = new ErrorDetector(this.ctx)
    this.network = new NetworkDetector(this.ctx)
    this.rage = new RageDetector(this.ctx)
    this.dead = new DeadDetector(this.ctx)
    this.actions = new UserActions(this.ctx)
  }

  window(id: string): void {
    this.tabs.switchTo(this.ctx, id)
  }

  push(event: RrwebEvent): void {
    if (this.finished) throw new Error('Analyzer already finished')
    this.eventCount++
    const recorded = event?.timestamp
    if (typeof event?.type !== 'number' || typeof recorded !== 'number' || !Number.isFinite(recorded)) return
    // The browser's clock, but never after the server received the session (plus the skew).
    const at = Math.min(recorded, this.latestAt)
    const seq = ++this.seq
    if (Number.isNaN(this.first)) {
      this.first = at
      this.ctx.sessionStart = at
    }
    if (!(this.last >= at)) this.last = at
    if (at >= this.deadline) this.flush(at)
    const data = isObj(event.data) ? event.data : {}
    switch (event.type) {
      case EventType.IncrementalSnapshot:
        this.incremental(data, at, seq)
        return
      case EventType.DomContentLoaded:
      case EventType.Load:
        // A new document: the previous page was left, which answers any click that led here.
        if (this.ctx.page.documentStarted(event.type === EventType.Load ? 'load' : 'domContentLoaded')) {
          this.network.pageLeft(at)
          this.ctx.responses.response(seq, at)
        }
        return
      case EventType.Meta:
        this.pageChange(this.ctx.page.meta(boundedStr(data.href, MAX_URL_CHARS) ?? ''), at, seq)
        return
      case EventType.FullSnapshot:
        this.ctx.doc.loadSnapshot(data.node)
        this.actions.documentLoaded()
        return
      case EventType.Custom:
        this.custom(data, at, seq)
        return
      case EventType.Plugin:
        this.plugin(data, at, seq)
    }
  }

  private flush(now: number): void {
    // Requests first: a console error released now may be the page's report of one of them.
    this.network.flush(now)
    this.errors.flush(now)
    this.rage.flush(now)
    this.dead.flush(now)
    this.updateDeadline()
  }

  private updateDeadline(): void {
    this.deadline = Math.min(
      this.errors.nextDeadline,
      this.network.nextDeadline,
      this.rage.nextDeadline,
      this.dead.nextDeadline,
    )
  }

  private incremental(data: Obj, at: number, seq: number): void {
    const source = data.source
    if (source === Source.MouseMove || source === Source.TouchMove) return
    const { responses, doc } = this.ctx
    if (source === Source.Mutation) {
      doc.applyMutation(data)
      const changed =
        arr(data.adds).length +
        arr(data.removes).length +
        arr(data.texts).length +
        arr(data.attributes).length
      if (changed > 0) responses.response(seq, at)
    } else if (source === Source.MouseInteraction) {
      this.mouse(data, at, seq)
    } else if (source === Source.Scroll) {
      responses.scroll(seq, at)
    } else if (source === Source.Input) {
      responses.response(seq, at)
      this.actions.input(data, at, seq)
    } else if (source === Source.Selection) {
      // A selection collapsing (a click elsewhere) is not an answer to anything.
      const selected = arr(data.ranges).some(
        (range) => isObj(range) && (range.start !== range.end || range.startOffset !== range.endOffset),
      )
      if (selected) {
        responses.response(seq, at)
        this.rage.selection()
      }
    } else if (typeof source === 'number' && RESPONSE_SOURCES.has(source)) {
      if (source === Source.StyleSheetRule) {
        for (const add of arr(data.adds))
          if (isObj(add) && typeof add.rule === 'string') doc.pointer.addCss(add.rule)
      }
      responses.response(seq, at)
    }
  }

  private mouse(data: Obj, at: number, seq: number): void {
    if (data.type === Mouse.MouseDown) {
      this.actions.pressed(at, seq)
    } else if (data.type === Mouse.DblClick) {
      this.rage.doubleClick()
    } else if (data.type === Mouse.Click) {
      const { click, previous } = this.actions.click(data, at, seq)
      this.rage.click(click)
      this.dead.click(click, previous)
      this.updateDeadline()
    }
  }

  private pageChange(change: PageChange, at: number, seq: number): void {
    const { page, store, responses, timeline, digest, trail } = this.ctx
    if (!change) return
    // The page that ended is the one before this change.
    store.pageEnded(page.previousVisit, at, 'page')
    this.network.pageLeft(at)
    responses.response(seq, at)
    timeline.page(seq, at, page.current.url, change)
    trail.navigation(at, page.current.url, change)
    digest.add('pages', { url: page.current.url, pathPattern: page.current.pathPattern, at })
  }

  private custom(data: Obj, at: number, seq: number): void {
    const payload = isObj(data.payload) ? data.payload : {}
    if (data.tag === 'navigation') {
      this.ctx.responses.response(seq, at)
      this.pageChange(this.ctx.page.navigation(boundedStr(payload.href, MAX_URL_CHARS) ?? ''), at, seq)
    } else if (data.tag === 'error' && payload.handled !== true) {
      this.errors.customError(payload, at, seq)
      this.updateDeadline()
    } else {
      this.ctx.trail.custom(
        at,
        this.ctx.page.current.url,
        typeof data.tag === 'string' ? data.tag : '',
        data.payload,
      )
    }
  }

  private plugin(data: Obj, at: number, seq: number): void {
    const payload = isObj(data.payload) ? data.payload : {}
    if (data.plugin === CONSOLE_PLUGIN) {
      this.ctx.trail.console(at, this.ctx.page.current.url, payload)
      this.errors.consolePlugin(payload, at, seq)
    } else if (data.plugin === NETWORK_PLUGIN) this.network.plugin(payload, at, seq)
    else return
    this.updateDeadline()
  }

  finish(): AnalysisResult {
    if (this.finished) throw new Error('Analyzer already finished')
    this.finished = true
    const { store, digest, trail } = this.ctx
    const pages = this.tabs.pages(this.ctx)
    const end = Number.isNaN(this.last) ? 0 : this.last
    const start = Number.isNaN(this.first) ? 0 : this.first
    this.network.finish(end)
    this.errors.finish()
    // Rage bursts close first so they can supersede dead clicks on the same element.
    this.rage.finish()
    this.dead.finish(end)
    for (const page of pages) store.pageEnded(page.current.visit, end, 'session')
    // What is stored as issues and the session's digest must be text Postgres accepts.
    const findings = makeStorable(store.results(start))
    const durationMs = end - start
    return {
      findings,
      digest: makeStorable(digest.result(durationMs)),
      summary: {
        durationMs,
        pageCount: pages.reduce((sum, page) => sum + page.pageCount, 0),
        errorCount: store.countOf('js_error') + store.countOf('console_error'),
        rageClickCount: store.countOf('rage_click'),
        deadClickCount: store.countOf('dead_click'),
      },
      eventCount: this.eventCount,
      trail: trail.result(),
      errorFrames: this.errors.errorFrames(),
      errorStacks: this.errors.errorStacks(),
    }
  }
}

export function createAnalyzer(options: AnalyzerOptions = {}): Analyzer {
  return new SessionAnalyzer(options)
}

/** Runs a whole session through one analyser; the events may be streamed. */
export async function analyzeEvents(
  events: Iterable<RrwebEvent> | AsyncIterable<RrwebEvent>,
  options?: AnalyzerOptions,
): Promise<AnalysisResult> {
  const analyzer = createAnalyzer(options)
  if (Symbol.asyncIterator in events) {
    for await (const event of events) analyzer.push(event)
  } else {
    for (const event of events) analyzer.push(event)
  }
  return analyzer.finish()
}
