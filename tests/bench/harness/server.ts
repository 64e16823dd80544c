import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import path from 'node:path'

/**
 * The processes a benchmark run talks to, all on 127.0.0.1. Unlike the e2e helper, the data
 * directory is the caller's (the organization and keys are written into it before the server
 * opens the embedded database) and the environment may point at Postgres.
 */

export interface RunningProcess {
  baseUrl: string
  pid: number
  logs(): string
  stop(): Promise<void>
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

function capture(child: ChildProcess): () => string {
  let output = ''
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8')
    // A long run must not grow the log without bound; the tail is what explains a failure.
    if (output.length > 200_000) output = output.slice(-100_000)
  }
  child.stdout?.on('data', append)
  child.stderr?.on('data', append)
  return () => output
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref()
    })
}

export interface NextServerOptions {
  dataDir: string
  /** Set for the Postgres configuration; unset runs the embedded defaults (PGlite). */
  databaseUrl?: string
  /** Writes a V8 CPU profile of the server into this directory when it exits. */
  cpuProfileDir?: string
  /** More environment for the server. */
  env?: Record<string, string>
}

/** The production server (`npm start`: server.mjs) on a free port, in the given data directory. */
export async function startNextServer(options: NextServerOptions): Promise<RunningProcess> {
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  // Node itself rather than the .bin shim, so profiling flags (not allowed in NODE_OPTIONS)
  // reach the server process.
  const profile = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : []
  const child = spawn(
    process.execPath,
    [
      ...profile,
      // What `npm start` runs: our server in front of Next's handler.
      'server.mjs',
      '-p',
      String(port),
      '-H',
      '127.0.0.1',
    ],
    {
      cwd: process.cwd(),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'production',
        PORT: String(port),
        BASE_URL: baseUrl,
        DATA_DIR: options.dataDir,
        AUTH_SECRET: 'bench-secret-bench-secret-bench-secret-0123456789',
        ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  const logs = capture(child)
  const stop = stopper(child)
  // The instrumentation hook opens and migrates the database before the first answer, so a
  // preflight answered means the ingest route is ready to store.
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}:\n${logs()}`)
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`next start did not answer within 60 s:\n${logs()}`)
    }
    try {
      const response = await fetch(`${baseUrl}/api/sdk/replay`, { method: 'OPTIONS' })
      if (response.status === 204) break
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return { baseUrl, pid: child.pid ?? 0, logs, stop }
}

/** The bare Node baseline (baseline-server.ts) as its own process, appending to `file`. */
export async function startBaselineServer(file: string): Promise<RunningProcess> {
  const script = path.join(import.meta.dirname, 'baseline-server.ts')
  const child = spawn(process.execPath, ['--import', 'tsx', script, file], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const logs = capture(child)
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`baseline server did not start:\n${logs()}`)), 30_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`baseline server exited with ${code}:\n${logs()}`))
    })
    let buffered = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8')
      const match = /\{"port":(\d+)\}/.exec(buffered)
      if (match) {
        clearTimeout(timer)
        resolve(Number(match[1]))
      }
    })
  })
  return { baseUrl: `http://127.0.0.1:${port}`, pid: child.pid ?? 0, logs, stop: stopper(child) }
}
