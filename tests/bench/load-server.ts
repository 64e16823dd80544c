import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { RunningProcess } from './servers'

/**
 * The production server of the soak run and what can be seen of it from outside. servers.ts
 * starts `next start` with a fixed environment; the soak needs a few more variables (private
 * webhook targets, the test CA, short retry waits) and must know its port before seeding (the
 * OAuth tokens are bound to `{BASE_URL}/api/mcp`), hence this variant. Nothing is added to
 * the app: memory is read from /proc, and the V8 heap from what heap-probe.mjs, preloaded into
 * the server, writes to a file.
 */

/**
 * The server's AUTH_SECRET. The seeding process must use the same one: webhook secrets are
 * encrypted with a key derived from it, and the server must be able to decrypt them.
 */
export const SOAK_AUTH_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789'

export function freePort(): Promise<number> {
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

export interface SoakServer extends RunningProcess {
  /** pino lines at level error or fatal (50, 60) and warn (40) seen so far, and the first few. */
  logCounts(): { errors: number; warnings: number; firstErrors: string[] }
  /** The server's V8 heap as its probe last wrote it (at most 2 s old). */
  heap(): HeapSample | null
  /** How far the request ids in the log lead back from background work to an ingest request. */
  tracing(): Tracing
}

export interface Tracing {
  ingestRequests: number
  sessionsProcessed: number
  /** `session processed` lines whose request id is that of an ingest request in the log. */
  sessionsTracedToIngest: number
  deliveries: number
  /** `webhook delivered` lines whose request id is that of an ingest request in the log. */
  deliveriesTracedToIngest: number
}

export async function startSoakServer(options: {
  port: number
  dataDir: string
  databaseUrl: string
  env: Record<string, string>
}): Promise<SoakServer> {
  const baseUrl = `http://127.0.0.1:${options.port}`
  const heapFile = path.join(options.dataDir, 'heap-probe.json')
  // Node itself running what `npm start` runs (server.mjs in front of Next's handler, in this
  // very process), so its pid is the one whose memory is sampled.
  const child = spawn(
    process.execPath,
    [
      '--import',
      pathToFileURL(path.join('tests', 'bench', 'heap-probe.mjs')).href,
      'server.mjs',
      '-p',
      String(options.port),
      '-H',
      '127.0.0.1',
    ],
    {
      cwd: process.cwd(),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'production',
        PORT: String(options.port),
        BASE_URL: baseUrl,
        DATA_DIR: options.dataDir,
        DATABASE_URL: options.databaseUrl,
        AUTH_SECRET: SOAK_AUTH_SECRET,
        HEAP_PROBE_FILE: heapFile,
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  let pending = ''
  let errors = 0
  let warnings = 0
  const firstErrors: string[] = []
  const ingestRequestIds = new Set<string>()
  const processedUnder: (string | undefined)[] = []
  const deliveredUnder: (string | undefined)[] = []
  const follow = (line: string) => {
    if (
      !line.includes('"msg":"request"') &&
      !line.includes('"msg":"session processed"') &&
      !line.includes('"msg":"webhook delivered"')
    )
      return
    const record = JSON.parse(line) as { msg: string; surface?: string; requestId?: string }
    if (record.msg === 'request' && record.surface === 'ingest' && record.requestId)
      ingestRequestIds.add(record.requestId)
    else if (record.msg === 'session processed') processedUnder.push(record.requestId)
    else if (record.msg === 'webhook delivered') deliveredUnder.push(record.requestId)
  }
  const append = (chunk: Buffer) => {
    const text = chunk.toString('utf8')
    output += text
    // Only the tail explains a failure; a ten-minute run must not grow the buffer without bound.
    if (output.length > 200_000) output = output.slice(-100_000)
    // Levels are counted line by line as they arrive, so none is lost to the truncation above.
    pending += text
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      follow(line)
      const level = /"level":(\d+)/.exec(line)?.[1]
      if (level === '40') warnings++
      else if (level === '50' || level === '60') {
        errors++
        if (firstErrors.length < 5) firstErrors.push(line.slice(0, 600))
      }
    }
  }
  child.stdout?.on('data', append)
  child.stderr?.on('data', append)
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref()
    })
  // The health route answers 200 once the database, blobs, limiter and jobs engine respond:
  // the server is then ready for every kind of traffic of the run.
  const deadline = Date.now() + 90_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server.mjs exited with ${child.exitCode}:\n${output}`)
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`server.mjs was not healthy within 90 s:\n${output}`)
    }
    try {
      const response = await fetch(`${baseUrl}/api/health`)
      await response.arrayBuffer()
      if (response.status === 200) break
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return {
    baseUrl,
    pid: child.pid ?? 0,
    logs: () => output,
    stop,
    logCounts: () => ({ errors, warnings, firstErrors: [...firstErrors] }),
    heap: () => readHeap(heapFile),
    tracing: () => {
      const traced = (ids: (string | undefined)[]) =>
        ids.filter((id) => id && ingestRequestIds.has(id)).length
      return {
        ingestRequests: ingestRequestIds.size,
        sessionsProcessed: processedUnder.length,
        sessionsTracedToIngest: traced(processedUnder),
        deliveries: deliveredUnder.length,
        deliveriesTracedToIngest: traced(deliveredUnder),
      }
    },
  }
}

export interface HeapSample {
  /** V8 heap in use (live objects and garbage not yet collected), MiB. */
  usedMiB: number
  /** V8 heap reserved, MiB. */
  totalMiB: number
  /** Memory of Buffers and other objects outside the heap, MiB. */
  externalMiB: number
  /** The heap still in use after the last full collection (null before the first), MiB. */
  liveMiB: number | null
  majorGcs: number
}

function readHeap(file: string): HeapSample | null {
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as {
      heapUsed: number
      heapTotal: number
      external: number
      liveAfterMajorGc: number | null
      majorGcs: number
    }
    const toMiB = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10
    return {
      usedMiB: toMiB(m.heapUsed),
      totalMiB: toMiB(m.heapTotal),
      externalMiB: toMiB(m.external),
      liveMiB: m.liveAfterMajorGc === null ? null : toMiB(m.liveAfterMajorGc),
      majorGcs: m.majorGcs,
    }
  } catch {
    return null
  }
}

export interface MemorySample {
  /** Resident set of the server process, MiB. */
  rssMiB: number | null
  /**
   * Anonymous resident memory, MiB: the V8 heap plus native allocations (Buffers, sockets),
   * without mapped files. The V8 heap itself cannot be read from outside the process.
   */
  anonMiB: number | null
  /** Processes in the server's tree (1: server.mjs serves in its own process). */
  processes: number
}

function statusKiB(pid: number, field: string): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) : null
  } catch {
    return null
  }
}

/** The pid and its descendants, from the parent pids in /proc. */
function tree(root: number): number[] {
  const parent = new Map<number, number>()
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
        // Fields after the command name, which may itself hold spaces and parentheses.
        parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
      } catch {
        // the process ended while we looked
      }
    }
  } catch {
    return [root]
  }
  return [...parent.keys()].filter((pid) => {
    for (let p: number | undefined = pid; p && p > 1; p = parent.get(p)) if (p === root) return true
    return false
  })
}

const mib = (kib: number) => Math.round((kib / 1024) * 10) / 10

export function memoryOf(pid: number): MemorySample {
  const pids = tree(pid)
  let rss = 0
  let anon = 0
  let seen = false
  for (const p of pids) {
    const r = statusKiB(p, 'VmRSS')
    const a = statusKiB(p, 'RssAnon')
    if (r === null) continue
    seen = true
    rss += r
    anon += a ?? 0
  }
  return { rssMiB: seen ? mib(rss) : null, anonMiB: seen ? mib(anon) : null, processes: pids.length }
}
