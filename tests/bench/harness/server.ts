import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { freePort } from '../../helpers/free-port'

/**
 * The processes a benchmark run talks to, all on 127.0.0.1: the production server (what
 * `npm start` runs) and helper scripts such as the bare-Node baseline or the reference OAuth
 * server. Unlike the e2e helper, the data directory is the caller's (organizations and keys
 * are written into it before the server opens the embedded database) and the environment may
 * point at Postgres. Every benchmark starts its processes here, so they all get the same
 * environment, the same output capture and the same way to stop.
 */

export interface RunningProcess {
  baseUrl: string
  pid: number
  logs(): string
  stop(): Promise<void>
}

/**
 * The server's AUTH_SECRET. A seeding process that encrypts anything for the server (webhook
 * secrets) must use the same one.
 */
export const BENCH_AUTH_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789'

export function hasProductionBuild(): boolean {
  return existsSync(path.join(process.cwd(), '.next', 'BUILD_ID'))
}

/** The output of a child so far; `onText` sees every chunk, before the tail is cut. */
function capture(child: ChildProcess, onText?: (text: string) => void): () => string {
  let output = ''
  const append = (chunk: Buffer) => {
    const text = chunk.toString('utf8')
    output += text
    // A long run must not grow the log without bound; the tail is what explains a failure.
    if (output.length > 200_000) output = output.slice(-100_000)
    onText?.(text)
  }
  child.stdout?.on('data', append)
  child.stderr?.on('data', append)
  return () => output
}

function stopper(child: ChildProcess, killAfterMs = 15_000): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), killAfterMs).unref()
    })
}

/** Node's flags to write a V8 CPU profile into `dir` when the process exits. */
const profileFlags = (dir: string | undefined) => (dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [])

/** The environment every child starts from: nothing of the caller's leaks in. */
export const baseEnv = () => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  NODE_ENV: 'production' as const,
})

export interface ServerOptions {
  dataDir: string
  /** Set for the Postgres configuration; unset runs the embedded defaults (PGlite). */
  databaseUrl?: string
  /** A fixed port (when BASE_URL must be known before the server starts); a free one otherwise. */
  port?: number
  /** Writes a V8 CPU profile of the server into this directory when it exits. */
  cpuProfileDir?: string
  /** Modules preloaded into the server (`node --import`), e.g. harness/heap-probe.mjs. */
  preload?: string[]
  /** More environment for the server. */
  env?: Record<string, string>
  /**
   * The request that answers `status` once the server is ready for the benchmark's traffic.
   * Default: the ingest preflight (204), answered once the instrumentation hook has opened and
   * migrated the database.
   */
  ready?: { path: string; method?: string; status: number }
  readyTimeoutMs?: number
  killAfterMs?: number
  /** Every chunk of the server's output as it arrives (e.g. to count log lines). */
  onOutput?: (text: string) => void
}

/** The production server (`npm start`: server.mjs) on 127.0.0.1, in the given data directory. */
export async function startServer(options: ServerOptions): Promise<RunningProcess> {
  const port = options.port ?? (await freePort())
  const baseUrl = `http://127.0.0.1:${port}`
  return startHttpProcess({
    name: 'server.mjs',
    // What `npm start` runs: our server in front of Next's handler.
    args: ['server.mjs', '-p', String(port), '-H', '127.0.0.1'],
    port,
    env: {
      PORT: String(port),
      BASE_URL: baseUrl,
      DATA_DIR: options.dataDir,
      AUTH_SECRET: BENCH_AUTH_SECRET,
      ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
      ...options.env,
    },
    cpuProfileDir: options.cpuProfileDir,
    preload: options.preload,
    // Default: the ingest preflight (204), answered once the instrumentation hook has opened
    // and migrated the database.
    ready: options.ready ?? { path: '/api/sdk/replay', method: 'OPTIONS', status: 204 },
    readyTimeoutMs: options.readyTimeoutMs,
    killAfterMs: options.killAfterMs,
    onOutput: options.onOutput,
  })
}

export interface HttpProcessOptions {
  /** For messages: what is starting. */
  name: string
  /** Arguments to Node: a script and its own arguments. */
  args: string[]
  port: number
  env: Record<string, string>
  cpuProfileDir?: string
  preload?: string[]
  /** The request that answers `status` once the process serves. */
  ready: { path: string; method?: string; status: number }
  readyTimeoutMs?: number
  killAfterMs?: number
  onOutput?: (text: string) => void
}

let serverNode = process.execPath

/**
 * The Node binary that runs the servers started from now on (default: the one running the
 * benchmark), so one run can measure the same server on two Node versions.
 */
export function setServerNode(binary: string): void {
  serverNode = binary
}

/**
 * A Node process serving HTTP on 127.0.0.1:`port`, ready once `ready` answers its status:
 * the production server, and the minimal Next app of the floor (harness/floor.ts).
 */
export async function startHttpProcess(options: HttpProcessOptions): Promise<RunningProcess> {
  const baseUrl = `http://127.0.0.1:${options.port}`
  // Node itself rather than the .bin shim, so profiling flags (not allowed in NODE_OPTIONS)
  // reach the server process, and its pid is the one whose CPU and memory are sampled.
  const profile = profileFlags(options.cpuProfileDir)
  const preload = (options.preload ?? []).flatMap((module) => ['--import', module])
  const child = spawn(serverNode, [...profile, ...preload, ...options.args], {
    cwd: process.cwd(),
    env: { ...baseEnv(), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const logs = capture(child, options.onOutput)
  const stop = stopper(child, options.killAfterMs)
  const { ready } = options
  const timeoutMs = options.readyTimeoutMs ?? 60_000
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${options.name} exited with ${child.exitCode}:\n${logs()}`)
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`${options.name} was not ready within ${timeoutMs / 1000} s:\n${logs()}`)
    }
    try {
      const response = await fetch(`${baseUrl}${ready.path}`, { method: ready.method ?? 'GET' })
      await response.arrayBuffer()
      if (response.status === ready.status) break
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return { baseUrl, pid: child.pid ?? 0, logs, stop }
}

/**
 * A TypeScript helper script (`node --import tsx script ...args`) as its own process, ready
 * once it prints a JSON line starting with `{"port"`; that line is returned parsed.
 */
export async function startScript<T extends { port: number }>(
  script: string,
  args: string[],
  options: { timeoutMs?: number; killAfterMs?: number; cpuProfileDir?: string } = {},
): Promise<{ process: RunningProcess; ready: T }> {
  const profile = profileFlags(options.cpuProfileDir)
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', script, ...args], {
    cwd: process.cwd(),
    env: baseEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const logs = capture(child)
  const stop = stopper(child, options.killAfterMs)
  const timeoutMs = options.timeoutMs ?? 30_000
  const name = path.basename(script)
  const ready = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${logs()}`)), timeoutMs)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited with ${code}:\n${logs()}`))
    })
    let buffered = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8')
      const line = buffered.split('\n').find((l) => l.startsWith('{"port"') && l.endsWith('}'))
      if (line) {
        clearTimeout(timer)
        resolve(JSON.parse(line) as T)
      }
    })
  }).catch(async (error: unknown) => {
    await stop()
    throw error
  })
  return { process: { baseUrl: `http://127.0.0.1:${ready.port}`, pid: child.pid ?? 0, logs, stop }, ready }
}

/**
 * The bare Node baseline (baseline-server.ts) as its own process: it answers the floor's
 * routes (harness/floor.ts) and, given a `file`, appends every other POST's body to it.
 */
export async function startBaselineServer(
  file?: string,
  options: { cpuProfileDir?: string } = {},
): Promise<RunningProcess> {
  const script = path.join(import.meta.dirname, 'baseline-server.ts')
  const started = await startScript(script, file ? [file] : [], options)
  return started.process
}
