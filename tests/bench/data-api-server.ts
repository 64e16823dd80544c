import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import path from 'node:path'

/**
 * The production build (`npm start`: server.mjs) for the Data API benchmark, pointed at a Postgres
 * database of the caller's. tests/e2e/server.ts always runs the embedded defaults, and the
 * benchmark must read the rows it seeded into Postgres, hence this variant.
 */

export interface DataApiServer {
  baseUrl: string
  pid: number
  logs(): string
  stop(): Promise<void>
}

export function hasProductionBuild(): boolean {
  return existsSync(path.join(process.cwd(), '.next', 'BUILD_ID'))
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

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref()
    })
}

export async function startDataApiServer(options: {
  databaseUrl: string
  dataDir: string
}): Promise<DataApiServer> {
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const child = spawn(
    process.execPath,
    // What `npm start` runs: our server in front of Next's handler.
    ['server.mjs', '-p', String(port), '-H', '127.0.0.1'],
    {
      cwd: process.cwd(),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'production',
        PORT: String(port),
        BASE_URL: baseUrl,
        // Local blobs and the in-process jobs engine still want a directory of their own.
        DATA_DIR: options.dataDir,
        DATABASE_URL: options.databaseUrl,
        AUTH_SECRET: 'bench-secret-bench-secret-bench-secret-0123456789',
        // Info lines are only start-up messages on this path, but a warning per request
        // would cost the server time the benchmark would then attribute to the route.
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8')
    // Only the tail explains a failure; a long run must not grow the buffer without bound.
    if (output.length > 200_000) output = output.slice(-100_000)
  }
  child.stdout?.on('data', append)
  child.stderr?.on('data', append)
  const stop = stopper(child)

  // The instrumentation hook opens and migrates the database before the first answer, so the
  // first 401 for a request without a token means the Data API is ready to serve.
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}:\n${output}`)
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`next start did not answer within 60 s:\n${output}`)
    }
    try {
      const response = await fetch(`${baseUrl}/api/v1/issues`)
      await response.arrayBuffer()
      if (response.status === 401) break
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return { baseUrl, pid: child.pid ?? 0, logs: () => output, stop }
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which may itself hold spaces and parentheses.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
  } catch {
    return null
  }
}

/**
 * Other builds, servers, benchmarks or test runs on the machine share its cores and would
 * distort the figures. Our own ancestors (npm, the tsx wrapper) are not "other".
 */
export function otherNextProcesses(): string[] {
  const ours = new Set<number>()
  for (let pid: number | null = process.pid; pid && !ours.has(pid); pid = parentOf(pid)) ours.add(pid)
  const found: string[] = []
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry) || ours.has(Number(entry))) continue
      try {
        const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim()
        // A grep for these names is someone looking, not load.
        if (/^(p?grep|rg) /.test(cmdline)) continue
        if (/next (build|start)|next-server|tests\/bench\/|vitest|bin\/tsc/.test(cmdline))
          found.push(`${entry} ${cmdline}`)
      } catch {
        // the process ended while we looked
      }
    }
  } catch {
    // no /proc (not Linux): nothing to report
  }
  return found
}
