import type { Db } from '@/db/client'
import { type ClaimedRun, completeRuns, MAX_COMPLETIONS_PER_STATEMENT } from './runs-store'

interface Pending {
  run: ClaimedRun
  resolve: (held: boolean) => void
  reject: (error: unknown) => void
}

/**
 * Group commit of run completions: the first completion is written at once, and those that
 * finish while its statement is on its way go together in the next one. Each caller still
 * learns only after its own row is written whether it still held the run, so a run is never
 * reported done before it is; under load the engine pays one round trip per batch, not per run.
 */
export class CompletionWriter {
  private queue: Pending[] = []
  private writing = false

  constructor(private readonly db: () => Promise<Db>) {}

  /** Resolves true once `run` is recorded completed, false when it was no longer held. */
  complete(run: ClaimedRun): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ run, resolve, reject })
      if (!this.writing) void this.writeAll()
    })
  }

  private async writeAll(): Promise<void> {
    this.writing = true
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_COMPLETIONS_PER_STATEMENT)
        try {
          const completed = await completeRuns(
            await this.db(),
            batch.map((p) => p.run),
          )
          for (const p of batch) p.resolve(completed.has(p.run.id))
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
