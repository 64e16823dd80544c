/**
 * The mutation guard's accounting (docs/recorder.md#mutation-guard), free of the DOM so Node
 * tests drive it with plain objects for nodes.
 *
 * Every rrweb Mutation event is counted as its entries (adds, removes, texts, attributes), each
 * charged to the node it changes and all of that node's ancestors. Two token buckets watch the
 * page's total: the budget (`maxMutationsPerSecond`) says when to look for a hot subtree, the
 * hard bound (a multiple of it) when to pause the whole page. Which subtree to stop is found by
 * per-node rates: the smallest subtrees still over the budget, so a busy ticker is stopped
 * without its quiet neighbours or the container that holds both.
 */

/** The hard bound for the whole page, as a multiple of the per-subtree budget. */
export const PAGE_BOUND_FACTOR = 5
/** A bucket holds this many seconds of its rate: short bursts pass. */
const BURST_SECONDS = 2
/** Ancestors followed per changed node; deeper DOMs charge only their nearest 64 levels. */
const MAX_DEPTH = 64
const WINDOW_MS = 1000

/**
 * Tokens refill at `perSecond`; one charge takes at most one second's worth, so a single large
 * DOM update (a route rendering thousands of nodes) never empties a bucket on its own.
 */
export class TokenBucket {
  private tokens: number
  private at: number

  constructor(
    private readonly perSecond: number,
    now: number,
  ) {
    this.tokens = perSecond * BURST_SECONDS
    this.at = now
  }

  /** Takes `count` tokens; false when there were not enough (the bucket is then left empty). */
  take(count: number, now: number): boolean {
    const capacity = this.perSecond * BURST_SECONDS
    this.tokens = Math.min(capacity, this.tokens + (Math.max(0, now - this.at) * this.perSecond) / 1000)
    this.at = now
    const charge = Math.min(count, this.perSecond)
    if (this.tokens >= charge) {
      this.tokens -= charge
      return true
    }
    this.tokens = 0
    return false
  }

  refill(now: number): void {
    this.tokens = this.perSecond * BURST_SECONDS
    this.at = now
  }
}

/**
 * Mutations per second of one node's subtree over a sliding second, estimated from two fixed
 * windows (the previous one weighted by how much of it the sliding second still covers).
 */
export class RateCounter {
  private window = -1
  private count = 0
  private previous = 0

  add(count: number, now: number): void {
    this.roll(now)
    this.count += count
  }

  rate(now: number): number {
    this.roll(now)
    const elapsed = (now % WINDOW_MS) / WINDOW_MS
    return Math.round(this.previous * (1 - elapsed) + this.count)
  }

  private roll(now: number): void {
    const window = Math.floor(now / WINDOW_MS)
    if (window === this.window) return
    this.previous = window === this.window + 1 ? this.count : 0
    this.count = 0
    this.window = window
  }
}

export interface BudgetVerdict<N> {
  /** Subtrees to stop recording, with their rate at the time. */
  trip: Array<{ node: N; rate: number }>
  /** Set when the whole page went over the hard bound: its total rate. */
  pageRate: number | null
}

export interface BudgetDeps<N> {
  /** Mutations per second one subtree may make. */
  perSecond: number
  parentOf: (node: N) => N | null
  /** Whether a node may be stopped on its own (not the document, `<html>`, `<head>`, `<body>`). */
  canTrip: (node: N) => boolean
  now: () => number
}

export class MutationBudget<N extends object> {
  private readonly rates = new WeakMap<N, RateCounter>()
  private readonly total = new RateCounter()
  private readonly budget: TokenBucket
  private readonly hardBound: TokenBucket
  private readonly tripped = new WeakSet<N>()

  constructor(private readonly deps: BudgetDeps<N>) {
    const now = deps.now()
    this.budget = new TokenBucket(deps.perSecond, now)
    this.hardBound = new TokenBucket(deps.perSecond * PAGE_BOUND_FACTOR, now)
  }

  get pageBound(): number {
    return this.deps.perSecond * PAGE_BOUND_FACTOR
  }

  /** The page's total rate over the last second. */
  pageRate(now: number): number {
    return this.total.rate(now)
  }

  /** Starts the page's budget afresh, after recording resumed with a new full snapshot. */
  reset(): void {
    const now = this.deps.now()
    this.budget.refill(now)
    this.hardBound.refill(now)
  }

  /** Counts one Mutation event: `changes` maps each changed node to its number of entries. */
  charge(changes: ReadonlyMap<N, number>): BudgetVerdict<N> {
    const { parentOf } = this.deps
    const now = this.deps.now()
    // Each node of the event's chains once, with what it is charged, and the chains' edges.
    const charged = new Map<N, number>()
    const children = new Map<N, Set<N>>()
    const tops = new Set<N>()
    let sum = 0
    for (const [target, count] of changes) {
      sum += count
      let node: N | null = target
      let child: N | null = null
      for (let depth = 0; node && depth < MAX_DEPTH; depth++) {
        charged.set(node, (charged.get(node) ?? 0) + count)
        if (child) {
          const set = children.get(node)
          if (set) set.add(child)
          else children.set(node, new Set([child]))
        }
        const parent: N | null = parentOf(node)
        if (!parent || depth === MAX_DEPTH - 1) tops.add(node)
        child = node
        node = parent
      }
    }
    for (const [node, count] of charged) this.rateOf(node).add(count, now)
    this.total.add(sum, now)

    const verdict: BudgetVerdict<N> = { trip: [], pageRate: null }
    if (!this.budget.take(sum, now)) {
      for (const top of tops) this.findHot(top, children, now, verdict.trip)
    }
    // A subtree found hot now stops adding to the total, so the page bound waits for that.
    if (!this.hardBound.take(sum, now) && verdict.trip.length === 0) verdict.pageRate = this.total.rate(now)
    return verdict
  }

  /** Smallest subtrees under `node` that are over the budget; each counted once. */
  private findHot(
    node: N,
    children: Map<N, Set<N>>,
    now: number,
    out: Array<{ node: N; rate: number }>,
  ): void {
    const { perSecond, canTrip } = this.deps
    // Walked with an explicit stack: the chains are at most MAX_DEPTH deep, but stay iterative anyway.
    const stack: N[] = [node]
    while (stack.length > 0) {
      const current = stack.pop() as N
      const rate = this.rateOf(current).rate(now)
      if (rate <= perSecond) continue
      const hot = [...(children.get(current) ?? [])].filter((c) => this.rateOf(c).rate(now) > perSecond)
      if (hot.length > 0) {
        stack.push(...hot)
        continue
      }
      // Many quiet children that add up: not one subtree's doing, the page bound decides.
      if (!canTrip(current) || this.tripped.has(current)) continue
      this.tripped.add(current)
      out.push({ node: current, rate })
    }
  }

  private rateOf(node: N): RateCounter {
    let counter = this.rates.get(node)
    if (!counter) {
      counter = new RateCounter()
      this.rates.set(node, counter)
    }
    return counter
  }
}
