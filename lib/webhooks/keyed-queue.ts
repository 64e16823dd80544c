/**
 * Runs tasks with two bounds on how many run at once: overall, and per key (a webhook
 * endpoint). A key's tasks start in the order they were added; different keys run side by
 * side, so one slow receiver holds at most its own share of the slots and never the others'.
 * Of the keys below their bound, the one whose next task was added first goes next.
 */
interface Entry {
  seq: number
  run: () => Promise<void>
}

interface KeyState {
  waiting: Entry[]
  /** Index of the next task in `waiting` (shifting arrays is linear). */
  head: number
  running: number
}

interface Waiter {
  ready: () => boolean
  resolve: () => void
}

export class KeyedQueue {
  private readonly keys = new Map<string, KeyState>()
  private running = 0
  private queued = 0
  private seq = 0
  private waiters: Waiter[] = []

  constructor(
    private readonly concurrency: number,
    private readonly perKey: number,
  ) {
    if (concurrency < 1 || perKey < 1) throw new Error('KeyedQueue bounds must be at least 1')
  }

  /** Queues a task; its errors are the task's own to handle (a throw is swallowed here). */
  add(key: string, run: () => Promise<void>): void {
    let state = this.keys.get(key)
    if (!state) {
      state = { waiting: [], head: 0, running: 0 }
      this.keys.set(key, state)
    }
    state.waiting.push({ seq: this.seq++, run })
    this.queued++
    this.pump()
  }

  /** Tasks added but not started yet. */
  get backlog(): number {
    return this.queued
  }

  /** Resolves once fewer than `n` tasks wait to start (or nothing runs or waits). */
  whenBacklogBelow(n: number): Promise<void> {
    return this.when(() => this.queued < n)
  }

  /** Resolves once every task added so far has finished. */
  idle(): Promise<void> {
    return this.when(() => this.queued === 0 && this.running === 0)
  }

  private when(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve()
    return new Promise<void>((resolve) => this.waiters.push({ ready, resolve }))
  }

  /** The key below its bound whose next task is the oldest, if any. */
  private nextKey(): [string, KeyState] | undefined {
    let best: [string, KeyState] | undefined
    for (const entry of this.keys) {
      const state = entry[1]
      if (state.running >= this.perKey || state.head >= state.waiting.length) continue
      if (!best || state.waiting[state.head]!.seq < best[1].waiting[best[1].head]!.seq) best = entry
    }
    return best
  }

  private pump(): void {
    while (this.running < this.concurrency) {
      const next = this.nextKey()
      if (!next) break
      const [key, state] = next
      const entry = state.waiting[state.head]!
      state.head++
      if (state.head === state.waiting.length) {
        state.waiting = []
        state.head = 0
      }
      this.queued--
      this.running++
      state.running++
      void entry
        .run()
        .catch(() => {})
        .finally(() => {
          this.running--
          state.running--
          if (state.running === 0 && state.waiting.length === 0) this.keys.delete(key)
          this.pump()
        })
    }
    if (this.waiters.length === 0) return
    const still: Waiter[] = []
    for (const w of this.waiters)
      if (w.ready()) w.resolve()
      else still.push(w)
    this.waiters = still
  }
}
