import type { Db } from '@/db/client'
import {
  type ClaimedRun,
  completeRuns,
  MAX_COMPLETIONS_PER_STATEMENT,
  type StepSave,
  saveSteps,
} from './runs-store'

interface Pending<T> {
  item: T
  resolve: (held: boolean) => void
  reject: (error: unknown) => void
}

/**
 * Group commit of one kind of fenced run write: the first is written at once, and those that
 * come while its statement is on its way go together in the next one. Each caller still learns
 * only after its own row is written whether it still held the run, so nothing is reported
 * written before it is; under load the engine pays one round trip per batch, not per run.
 * A batch names each run once (see the steps' `take`): one statement cannot apply two rows to
 * the same run.
 */
class GroupCommit<T extends { run: ClaimedRun }> {
  private queue: Pending<T>[] = []
  private writing = false

  constructor(
    private readonly db: () => Promise<Db>,
    private readonly writeBatch: (db: Db, items: T[]) => Promise<Set<string>>,
    private readonly take: (queue: readonly Pending<T>[]) => number,
  ) {}

  /** Resolves true once written, false when the run was no longer held under its claim. */
  write(item: T): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject })
      if (!this.writing) void this.writeAll()
    })
  }

  private async writeAll(): Promise<void> {
    this.writing = true
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, Math.max(1, this.take(this.queue)))
        try {
          const written = await this.writeBatch(
            await this.db(),
            batch.map((p) => p.item),
          )
          for (const p of batch) p.resolve(written.has(p.item.run.id))
        } catch (error) {
          // Each caller handles the failure as a failed write of its own.
          for (const p of batch) p.reject(error)
        }
      }
    } finally {
      this.writing = false
    }
  }
}

/** Step results per statement are bounded by size (each may be up to 4 MB of JSON). */
const MAX_STEP_BYTES_PER_STATEMENT = 4 * 1024 * 1024

/** The engine's group-committed writes: completions, and the result of each completed step. */
export class RunWriters {
  private readonly completions: GroupCommit<{ run: ClaimedRun }>
  private readonly steps: GroupCommit<StepSave>

  constructor(db: () => Promise<Db>, leaseMs: number) {
    this.completions = new GroupCommit(
      db,
      (database, items) =>
        completeRuns(
          database,
          items.map((i) => i.run),
        ),
      (queue) => Math.min(queue.length, MAX_COMPLETIONS_PER_STATEMENT),
    )
    this.steps = new GroupCommit(
      db,
      (database, items) => saveSteps(database, items, leaseMs),
      (queue) => {
        let bytes = 0
        let n = 0
        // A handler may run steps in parallel (Promise.all of step.run), so one run can have
        // several saves waiting; `UPDATE … FROM` would apply only one of them to its row. The
        // batch ends before a run it already names; the next batch takes the rest.
        const runs = new Set<string>()
        while (n < queue.length && n < MAX_COMPLETIONS_PER_STATEMENT) {
          const item = queue[n]!.item
          if (runs.has(item.run.id)) break
          bytes += item.json.length
          if (n > 0 && bytes > MAX_STEP_BYTES_PER_STATEMENT) break
          runs.add(item.run.id)
          n++
        }
        return n
      },
    )
  }

  /** Records a held run completed; false when it was no longer held. */
  complete(run: ClaimedRun): Promise<boolean> {
    return this.completions.write({ run })
  }

  /** Records a completed step's JSON result under `key` and renews the lease; false when no longer held. */
  saveStep(save: StepSave): Promise<boolean> {
    return this.steps.write(save)
  }
}
