/**
 * Runs tasks with two bounds on how many run at once: overall, and per key (a webhook
 * endpoint). A key's tasks start in the order they were added; different keys run side by
 * side, so one slow receiver holds at most its own share of the slots and never the others'.
 */
interface Entry {
  key: string
  run: () => Promise<void>
}

interface Waiter {
  ready: () => boolean
  resolve: () => void
}

export class KeyedQueue {
  private readonly queued: Entry[] = []
  private readonly runningPerKey = new Map<string, number>()
  private running = 0
  private waiters: Waiter[] = []

  constructor(
    private readonly concurrency: number,
    private readonly perKey: number,
  ) {
    if (concurrency < 1 || perKey < 1) throw new Error('KeyedQueue bounds must be at least 1')
  }

  /** Queues a task; its errors are the task's own to handle (a throw is swallowed here). */
  add(key: string, run: () => Promise<void>): void {
    this.queued.push({ key, run })
    this.pump()
  }

  /** Tasks added but not started yet. */
  get backlog(): number {
    return this.queued.length
  }

  /** Resolves once fewer than `n` tasks wait to start (or nothing runs or waits). */
  whenBacklogBelow(n: number): Promise<void> {
    return this.when(() => this.queued.length < n)
  }

  /** Resolves once every task added so far has finished. */
  idle(): Promise<void> {
    return this.when(() => this.queued.length === 0 && this.running === 0)
  }

  private when(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve()
    return new Promise<void>((resolve) => this.waiters.push({ ready, resolve }))
  }

  private pump(): void {
    // Scanning in order and skipping keys at their bound keeps each key's start order: a
    // later task of a key at its bound is at the bound too.
    for (let i = 0; i < this.queued.length && this.running < this.concurrency; ) {
      const entry = this.queued[i]!
      const keyRunning = this.runningPerKey.get(entry.key) ?? 0
      if (keyRunning >= this.perKey) {
        i++
        continue
      }
      this.queued.splice(i, 1)
      this.running++
      this.runningPerKey.set(entry.key, keyRunning + 1)
      void entry
        .run()
        .catch(() => {})
        .finally(() => {
          this.running--
          const left = (this.runningPerKey.get(entry.key) ?? 1) - 1
          if (left === 0) this.runningPerKey.delete(entry.key)
          else this.runningPerKey.set(entry.key, left)
          this.pump()
        })
    }
    const still: Waiter[] = []
    for (const w of this.waiters)
      if (w.ready()) w.resolve()
      else still.push(w)
    this.waiters = still
  }
}
