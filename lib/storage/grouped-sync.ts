/**
 * Group commit for syncs of one target (a directory): a caller asks for a sync once its own
 * change is done, and is answered only by a sync that started after it asked. Callers that
 * ask while a sync of the same target is in flight share the next one, so N concurrent
 * writers into one directory cost two syncs instead of N, and none is acknowledged before a
 * sync covering its change has completed. Targets are independent.
 */
export class GroupedSync {
  private readonly groups = new Map<string, Waiter[]>()

  constructor(private readonly syncOne: (target: string) => Promise<void>) {}

  sync(target: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiting = this.groups.get(target)
      if (waiting) {
        waiting.push({ resolve, reject })
        return
      }
      const group: Waiter[] = [{ resolve, reject }]
      this.groups.set(target, group)
      void this.drain(target, group)
    })
  }

  /** Syncs until nobody waits: each round answers exactly those who asked before it began. */
  private async drain(target: string, group: Waiter[]): Promise<void> {
    while (group.length > 0) {
      const round = group.splice(0)
      try {
        await this.syncOne(target)
        for (const waiter of round) waiter.resolve()
      } catch (error) {
        for (const waiter of round) waiter.reject(error)
      }
    }
    this.groups.delete(target)
  }
}

interface Waiter {
  resolve: () => void
  reject: (error: unknown) => void
}
