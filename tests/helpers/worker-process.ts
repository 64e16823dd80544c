import { type ChildProcess, fork } from 'node:child_process'
import path from 'node:path'

/** What tests/helpers/crash-worker.ts reads from CRASH_WORKER_OPTIONS. */
export interface WorkerOptions {
  /** The engine's lease: how soon after a SIGKILL the next worker may take the dead one's runs. */
  leaseMs: number
  pollIntervalMs: number
  /**
   * The language model: 'hang' takes the call and never answers; 'answer' gives `review` when
   * asked to review an issue and `decision` when asked to judge a signal.
   */
  model?:
    | { kind: 'hang' }
    | {
        kind: 'answer'
        review: { verified: boolean; title: string; description: string; stepsToReplicate: string }
        decision: { matched: boolean; reason: string }
      }
  /** Deliveries go to loopback receivers with certificates of this CA, names resolved by `hosts`. */
  webhooks?: { ca: string; hosts: Record<string, string[]> }
}

export type WorkerMessage = { type: 'ready'; pid: number } | { type: 'model-call' }

export interface WorkerProcess {
  readonly pid: number
  /** Resolves with the next message of this type not yet taken; rejects if the worker exits first. */
  nextMessage(type: WorkerMessage['type'], timeoutMs?: number): Promise<WorkerMessage>
  /** Everything the worker wrote to stdout and stderr, for failure messages. */
  output(): string
  /** SIGKILL, then waits until the process is gone. */
  kill(): Promise<void>
  readonly alive: boolean
}

const SCRIPT = path.join(import.meta.dirname, 'crash-worker.ts')
const live = new Set<ChildProcess>()

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

/**
 * Starts the worker on the given database and resolves once its engine is polling. The
 * process is tracked until it exits, so `killAllWorkers` in afterEach/afterAll leaves none
 * behind even when a test fails half-way.
 */
export async function startWorker(
  databaseUrl: string,
  options: WorkerOptions,
  extraEnv: Record<string, string> = {},
): Promise<WorkerProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    CRASH_WORKER_OPTIONS: JSON.stringify(options),
    LOG_LEVEL: process.env.CRASH_WORKER_LOG_LEVEL ?? 'warn',
    ...extraEnv,
  }
  // Vite's own BASE_URL ('/') must not reach the app's configuration (see tests/helpers/setup.ts).
  delete env.BASE_URL
  const child = fork(SCRIPT, [], {
    cwd: process.cwd(),
    env,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  })
  live.add(child)
  const gone = exited(child).then(() => {
    live.delete(child)
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
  })
  const inbox: WorkerMessage[] = []
  const waiters: Array<() => void> = []
  child.on('message', (message: WorkerMessage) => {
    inbox.push(message)
    for (const wake of waiters.splice(0)) wake()
  })

  const nextMessage = async (type: WorkerMessage['type'], timeoutMs = 30_000): Promise<WorkerMessage> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const index = inbox.findIndex((m) => m.type === type)
      if (index >= 0) return inbox.splice(index, 1)[0]!
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`worker ${child.pid} exited before sending "${type}":\n${output}`)
      if (Date.now() > deadline)
        throw new Error(`worker ${child.pid} sent no "${type}" within ${timeoutMs} ms:\n${output}`)
      // Woken by a message or by the exit, whichever comes first; re-checked at least every 250 ms.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 250)
        waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }

  const worker: WorkerProcess = {
    pid: child.pid!,
    nextMessage,
    output: () => output,
    get alive() {
      return child.exitCode === null && child.signalCode === null
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await gone
    },
  }
  try {
    // tsx compiles the app's modules on first start; on a busy two-core machine that is slow.
    await nextMessage('ready', 60_000)
  } catch (error) {
    await worker.kill()
    throw error
  }
  return worker
}

/** Kills every worker still running (afterEach/afterAll): a failed test leaves no process. */
export async function killAllWorkers(): Promise<void> {
  await Promise.all(
    [...live].map((child) => {
      const gone = exited(child)
      child.kill('SIGKILL')
      return gone
    }),
  )
  live.clear()
}
