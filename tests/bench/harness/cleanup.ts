/**
 * What a run must undo however it ends: servers, scratch databases, temporary directories.
 * Steps run last registered first (a server before the database it uses), each once, and a
 * failed step does not keep the others from running. Ctrl-C runs them too, so an interrupted
 * run leaves no server behind and no database on the Postgres server.
 */
export interface Cleanup {
  add(step: () => Promise<void> | void): void
  run(): Promise<void>
}

export function createCleanup(report: (line: string) => void): Cleanup {
  const steps: (() => Promise<void> | void)[] = []
  let running: Promise<void> | undefined
  const run = () => {
    running ??= (async () => {
      for (const step of steps.splice(0).reverse()) {
        try {
          await step()
        } catch (error) {
          report(`cleanup step failed: ${error instanceof Error ? error.message : String(error)}`)
        }
      }
      running = undefined
    })()
    return running
  }
  let listening = false
  // Installed with the first step, so a module that only creates its cleanup (and is imported
  // by a unit test for its other exports) does not take over the signals.
  const listen = () => {
    if (listening) return
    listening = true
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(signal, () => {
        report(`${signal}: cleaning up`)
        void run().finally(() => process.exit(130))
      })
  }
  return {
    add: (step) => {
      listen()
      steps.push(step)
    },
    run,
  }
}
