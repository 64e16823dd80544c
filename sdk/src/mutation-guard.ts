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

  /** Gives `root` and everything under it rrweb's ignored id; false when the walk hit its bound. */
  const ignoreSubtree = (root: Node): boolean => {
    // Drops the nodes' old ids first so the mirror does not keep detached nodes alive by them.
    mirror.removeNodeFromMap(root)
    const walker = doc.createTreeWalker(root, 0xffffffff)
    let marked = 0
    for (let node: Node | null = root; node; node = walker.nextNode()) {
      mirror.add(node, IGNORED)
      if (++marked >= MAX_MARKED_NODES) return false
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
    ignoreSubtree(element)
    trippedRoots.push(element)
    degraded = true
    log(`mutation guard: stopped recording <${element.tagName.toLowerCase()}> (${rate} mutations/s)`)
    emitLater({
      action: 'subtree-stopped',
      nodeId,
      tagName: element.tagName.toLowerCase(),
      mutationsPerSecond: rate,
      budget: perSecond,
    })
  }

  const insideTripped = (node: Node): boolean => trippedRoots.some((root) => root.contains(node))

  const resume = () => {
    if (!pause || stopped) return
    const pausedMs = Date.now() - pause.since
    pause.observer.disconnect()
    win.clearInterval(pause.timer)
    pause = null
    // Every node carries the ignored id now: a fresh mirror and full snapshot start over, as
    // rrweb does when recording starts; the parts stopped before stay stopped.
    mirror.reset()
    budget.reset()
    try {
      deps.takeFullSnapshot(true)
    } catch (error) {
      log(`mutation guard: full snapshot failed: ${error instanceof Error ? error.message : String(error)}`)
    }
    pruneTripped()
    for (const root of trippedRoots) ignoreSubtree(root)
    emitLater({ action: 'page-resumed', pausedMs })
  }

  const pausePage = (rate: number) => {
    degraded = true
    log(`mutation guard: paused recording the page (${rate} mutations/s)`)
    emitLater({ action: 'page-paused', mutationsPerSecond: rate, bound: budget.pageBound })
    ignoreSubtree(doc)
    pruneTripped()
    // rrweb sees nothing now, so a plain counter tells when the page calms down: a whole second
    // under the budget (the stopped parts not counted) resumes recording.
    let count = 0
    const observer = new MutationObserver((records) => {
      try {
        if (trippedRoots.length === 0) count += records.length
        else for (const record of records) if (!insideTripped(record.target)) count++
      } catch {
        count++
      }
    })
    observer.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true })
    const timer = win.setInterval(() => {
      try {
        if (count < perSecond) resume()
        count = 0
      } catch (error) {
        log(`mutation guard: ${error instanceof Error ? error.message : String(error)}`)
      }
    }, 1000)
    pause = { since: Date.now(), observer, timer }
  }

  /** The node a change is charged to: the element whose children or attributes changed. */
  const changes = (data: MutationData): Map<Node, number> => {
    const out = new Map<Node, number>()
    const add = (id: number) => {
      const node = mirror.getNode(id)
      if (node) out.set(node, (out.get(node) ?? 0) + 1)
    }
    for (const a of data.adds ?? []) add(a.parentId)
    for (const r of data.removes ?? []) add(r.parentId)
    for (const a of data.attributes ?? []) add(a.id)
    for (const t of data.texts ?? []) {
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
