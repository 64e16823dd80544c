/// <reference lib="dom" />
import type { eventWithTime, NodeType, serializedNodeWithId } from '@rrweb/types'
import { MutationBudget } from './mutation-budget'

/**
 * The recorder's mutation guard (docs/recorder.md#mutation-guard): stops rrweb recording a
 * subtree that changes faster than the budget, or the whole page past the hard bound, so the
 * recorder's cost on a busy page stays bounded instead of freezing it.
 *
 * How a part is stopped: its nodes get rrweb's own "ignored" id (-2, what rrweb gives nodes its
 * slim-DOM options leave out) in `record.mirror`. rrweb's mutation observer drops every
 * mutation whose target carries that id as its very first step, before any serialisation, so
 * the part costs rrweb one map lookup per change from then on. Blocking by `blockSelector` was
 * not taken: rrweb checks it only on the mutated node itself for text and attribute changes
 * (their serialisation goes on for descendants), and it needs an attribute written into the
 * page's own DOM, which the page sees: its observers, its CSS, and editors that save their
 * `innerHTML` would keep the mark.
 */

const INCREMENTAL_SNAPSHOT = 3
const MUTATION_SOURCE = 0
const IGNORED_ID = -2
/** What rrweb stores for a node it ignores; a comment's shape, which no rrweb code treats specially. */
const IGNORED: serializedNodeWithId = { type: 5 as NodeType.Comment, textContent: '', id: IGNORED_ID }
/** Nodes marked per stopped part (or page) at most: the walk is bounded like everything else. */
const MAX_MARKED_NODES = 200_000
/** Subtrees stopped at most; past it the page bound takes over. */
const MAX_TRIPPED = 50
export const GUARD_EVENT_TAG = 'svc.guard'
/** A page that stays unpaused this long after a resume starts again from one calm second. */
const BACKOFF_RESET_MS = 60_000
/** The longest calm a pause asks for before it resumes. */
export const MAX_CALM_SECONDS = 32

/** The part of `record.mirror` the guard uses. */
export interface GuardMirror {
  getNode(id: number): Node | null
  getId(node: Node | undefined | null): number
  add(node: Node, meta: serializedNodeWithId): void
  removeNodeFromMap(node: Node): void
  reset(): void
}

export type GuardEventPayload =
  | { action: 'subtree-stopped'; nodeId: number; tagName: string; mutationsPerSecond: number; budget: number }
  | { action: 'page-paused'; mutationsPerSecond: number; bound: number }
  | { action: 'page-resumed'; pausedMs: number }

export interface MutationGuardDeps {
  maxMutationsPerSecond: number
  mirror: GuardMirror
  addCustomEvent: (tag: string, payload: GuardEventPayload) => void
  takeFullSnapshot: (isCheckout?: boolean) => void
  doc: Document
  win: Window
  log: (message: string) => void
}

export interface MutationGuard {
  /** Counts rrweb's Mutation events; call with every event rrweb emits. Never throws. */
  observe(event: eventWithTime): void
  /**
   * Takes a full snapshot (what `record.takeFullSnapshot` does) that includes the stopped parts:
   * their nodes carry rrweb's ignored id, which rrweb's snapshot reuses and leaves out, so every
   * snapshot the recorder asks for goes through here. The parts appear as they are at that
   * moment and stay frozen there in the replay. Throws what rrweb throws.
   */
  snapshot(isCheckout?: boolean): void
  /** Whether any part of this page's recording was stopped: every later batch says so. */
  readonly degraded: boolean
  stop(): void
}

type MutationData = {
  adds?: Array<{ parentId: number }>
  removes?: Array<{ parentId: number }>
  texts?: Array<{ id: number }>
  attributes?: Array<{ id: number }>
  isAttachIframe?: true
}

const ROOTS = new Set(['HTML', 'HEAD', 'BODY'])

export function createMutationGuard(deps: MutationGuardDeps): MutationGuard {
  const { mirror, doc, win, log } = deps
  const perSecond = deps.maxMutationsPerSecond
  const budget = new MutationBudget<Node>({
    perSecond,
    parentOf: (node) => node.parentNode,
    canTrip: (node) => node.nodeType === 1 && !ROOTS.has((node as Element).tagName) && node.isConnected,
    now: Date.now,
  })
  let degraded = false
  let stopped = false
  const trippedRoots: Element[] = []
  let pause: { since: number; observer: MutationObserver; timer: number } | null = null
  let lastResumeAt: number | null = null
  /** Whole calm seconds a pause waits for before it resumes; doubled by each quick re-pause. */
  let calmSeconds = 1

  const emitLater = (payload: GuardEventPayload) => {
    win.setTimeout(() => {
      if (stopped) return
      try {
        deps.addCustomEvent(GUARD_EVENT_TAG, payload)
      } catch {
        // rrweb not recording (stopped meanwhile): the batches' `degraded` still says it.
      }
    }, 0)
  }

  /**
   * Gives `root` and everything under it, shadow roots included (a TreeWalker does not enter
   * them, rrweb records them), rrweb's ignored id; false when the walk hit its bound.
   */
  const ignoreSubtree = (root: Node): boolean => {
    // Drops the nodes' old ids first so the mirror does not keep detached nodes alive by them.
    // rrweb's removal recurses: on a DOM deep enough to overflow the stack the old ids stay
    // (kept alive until the next reset), and the marking goes on regardless.
    try {
      mirror.removeNodeFromMap(root)
    } catch {
      log('mutation guard: DOM too deep to drop its old ids')
    }
    const roots: Node[] = [root]
    let marked = 0
    for (let next = roots.pop(); next; next = roots.pop()) {
      const walker = doc.createTreeWalker(next, 0xffffffff)
      for (let node: Node | null = next; node; node = walker.nextNode()) {
        mirror.add(node, IGNORED)
        if (++marked >= MAX_MARKED_NODES) return false
        const shadow = (node as Partial<Element>).shadowRoot
        if (shadow) roots.push(shadow)
      }
    }
    return true
  }

  /** Forgets stopped parts the page has since removed, so they are not kept alive by the guard. */
  const pruneTripped = () => {
    for (let i = trippedRoots.length - 1; i >= 0; i--)
      if (!trippedRoots[i]!.isConnected) trippedRoots.splice(i, 1)
  }

  const stopSubtree = (element: Element, rate: number) => {
    pruneTripped()
    const nodeId = mirror.getId(element)
    trippedRoots.push(element)
    degraded = true
    if (!ignoreSubtree(element)) log('mutation guard: stopped part too large to mark in full')
    log(`mutation guard: stopped recording <${element.tagName.toLowerCase()}> (${rate} mutations/s)`)
    emitLater({
      action: 'subtree-stopped',
      nodeId,
      tagName: element.tagName.toLowerCase(),
      mutationsPerSecond: rate,
      budget: perSecond,
    })
  }

  /** Whether `node` is in a stopped part; `seen` keeps the answers of one observer callback. */
  const insideTripped = (node: Node, seen: Map<Node, boolean>): boolean => {
    let inside = seen.get(node)
    if (inside === undefined) {
      inside = trippedRoots.some((root) => root.contains(node))
      seen.set(node, inside)
    }
    return inside
  }

  /** Marks the stopped parts (and the whole page while paused) again after a mirror reset. */
  const markStopped = () => {
    pruneTripped()
    for (const root of trippedRoots) ignoreSubtree(root)
    if (pause) ignoreSubtree(doc)
  }

  /**
   * Without anything stopped it is rrweb's own snapshot, ids kept. Otherwise the mirror starts
   * over (rrweb's Mirror cannot forget one node's id), the snapshot takes fresh ids for every
   * node, and the stopped parts are marked again.
   */
  const snapshot = (isCheckout?: boolean, afterPause = false) => {
    pruneTripped()
    if (trippedRoots.length === 0 && !pause && !afterPause) {
      deps.takeFullSnapshot(isCheckout)
      return
    }
    mirror.reset()
    try {
      deps.takeFullSnapshot(isCheckout)
    } finally {
      markStopped()
    }
  }

  const resume = () => {
    if (!pause || stopped) return
    const pausedMs = Date.now() - pause.since
    lastResumeAt = Date.now()
    pause.observer.disconnect()
    win.clearInterval(pause.timer)
    pause = null
    // Every node carries the ignored id now: a fresh mirror and full snapshot start over, as
    // rrweb does when recording starts; the parts stopped before stay stopped.
    budget.reset()
    try {
      snapshot(true, true)
    } catch (error) {
      log(`mutation guard: full snapshot failed: ${error instanceof Error ? error.message : String(error)}`)
    }
    emitLater({ action: 'page-resumed', pausedMs })
  }

  /** Nodes `node` adds to the page, itself included, counted up to `cap`. */
  const nodesIn = (node: Node, cap: number): number => {
    if (node.nodeType !== 1) return 1
    const walker = doc.createTreeWalker(node, 0xffffffff)
    let n = 1
    while (n < cap && walker.nextNode()) n++
    return n
  }

  const pausePage = (rate: number) => {
    degraded = true
    const now = Date.now()
    // A page that trips again soon after a resume (a steady stream of inserted subtrees) would
    // cycle pause, resume and full snapshot: each re-pause doubles the calm time asked for.
    calmSeconds =
      lastResumeAt !== null && now - lastResumeAt < BACKOFF_RESET_MS
        ? Math.min(calmSeconds * 2, MAX_CALM_SECONDS)
        : 1
    log(`mutation guard: paused recording the page (${rate} mutations/s)`)
    emitLater({ action: 'page-paused', mutationsPerSecond: rate, bound: budget.pageBound })
    // rrweb sees nothing now, so a plain counter tells when the page calms down: `calmSeconds`
    // whole seconds under the budget (the stopped parts not counted) resume recording. It counts
    // what rrweb would: each node added or removed (an inserted subtree's descendants too), each
    // text or attribute change. Past the budget the second is lost anyway: counting stops, so the
    // count costs at most a budget's worth of node visits a second.
    let count = 0
    let calm = 0
    const observer = new MutationObserver((records) => {
      const seen = new Map<Node, boolean>()
      try {
        for (const record of records) {
          if (count >= perSecond) return
          if (trippedRoots.length > 0 && insideTripped(record.target, seen)) continue
          if (record.type !== 'childList') count++
          for (const node of record.addedNodes) count += nodesIn(node, perSecond - count)
          count += record.removedNodes.length
        }
      } catch {
        count++
      }
    })
    observer.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true })
    const timer = win.setInterval(() => {
      try {
        calm = count < perSecond ? calm + 1 : 0
        count = 0
        if (calm >= calmSeconds) resume()
      } catch (error) {
        log(`mutation guard: ${error instanceof Error ? error.message : String(error)}`)
      }
    }, 1000)
    // Set up before the walk: should it fail part way, the pause still ends, and the parts it
    // marked are unmarked by the resume's fresh mirror.
    pause = { since: now, observer, timer }
    pruneTripped()
    if (!ignoreSubtree(doc)) log('mutation guard: page too large to pause in full')
  }

  /** The node a change is charged to: the element whose children or attributes changed. */
  const changes = (data: MutationData): Map<Node, number> => {
    const out = new Map<Node, number>()
    const add = (id: number) => {
      // Ids below 0 (the ignored id) name no one node: getNode gives whichever was marked last.
      if (id < 0) return
      const node = mirror.getNode(id)
      if (node) out.set(node, (out.get(node) ?? 0) + 1)
    }
    for (const a of data.adds ?? []) add(a.parentId)
    for (const r of data.removes ?? []) add(r.parentId)
    for (const a of data.attributes ?? []) add(a.id)
    for (const t of data.texts ?? []) {
      if (t.id < 0) continue
      const parent = mirror.getNode(t.id)?.parentNode
      if (parent) out.set(parent, (out.get(parent) ?? 0) + 1)
    }
    return out
  }

  return {
    observe(event) {
      if (stopped || pause || event.type !== INCREMENTAL_SNAPSHOT) return
      const data = event.data as { source: number } & MutationData
      if (data.source !== MUTATION_SOURCE || data.isAttachIframe) return
      try {
        const verdict = budget.charge(changes(data))
        let full = false
        for (const { node, rate } of verdict.trip) {
          // So many hot parts are the page's doing as a whole: the page bound's pause handles it.
          if (trippedRoots.length >= MAX_TRIPPED) {
            full = true
            break
          }
          stopSubtree(node as Element, rate)
        }
        if (verdict.pageRate !== null || full) pausePage(verdict.pageRate ?? budget.pageRate(Date.now()))
      } catch (error) {
        log(`mutation guard: ${error instanceof Error ? error.message : String(error)}`)
      }
    },
    snapshot: (isCheckout) => snapshot(isCheckout),
    get degraded() {
      return degraded
    },
    stop() {
      stopped = true
      if (pause) {
        pause.observer.disconnect()
        win.clearInterval(pause.timer)
        pause = null
      }
    },
  }
}
