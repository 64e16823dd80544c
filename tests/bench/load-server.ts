import { readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { BENCH_AUTH_SECRET, type RunningProcess, startServer } from './harness/server'

/**
 * The production server of the soak run and what can be seen of it from outside: it needs a
 * few more variables (private webhook targets, the test CA, short retry waits) and must know
 * its port before seeding (the OAuth tokens are bound to `{BASE_URL}/api/mcp`). Nothing is
 * added to the app: memory is read from /proc (harness/machine.ts), and the V8 heap from what
 * harness/heap-probe.mjs, preloaded into the server, writes to a file.
 */

/**
 * The server's AUTH_SECRET. The seeding process must use the same one: webhook secrets are
 * encrypted with a key derived from it, and the server must be able to decrypt them.
 */
export const SOAK_AUTH_SECRET = BENCH_AUTH_SECRET

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
  /** Empty: PGlite in the data directory. */
  databaseUrl: string
  env: Record<string, string>
  /** A V8 CPU profile of the server, written here when it stops. */
  cpuProfileDir?: string
}): Promise<SoakServer> {
  const heapFile = path.join(options.dataDir, 'heap-probe.json')
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
  // Levels are counted line by line as they arrive, so none is lost to the log's truncation.
  const countLines = (text: string) => {
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
  const server = await startServer({
    port: options.port,
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    preload: [pathToFileURL(path.join(import.meta.dirname, 'harness', 'heap-probe.mjs')).href],
    env: { HEAP_PROBE_FILE: heapFile, ...options.env },
    // The health route answers 200 once the database, blobs, limiter and jobs engine respond:
    // the server is then ready for every kind of traffic of the run.
    ready: { path: '/api/health', status: 200 },
    readyTimeoutMs: 90_000,
    onOutput: countLines,
    cpuProfileDir: options.cpuProfileDir,
  })
  return {
    ...server,
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
  /** The longest the event loop was held up in the last 10 s, ms. */
  loopDelayMaxMs: number
}

function readHeap(file: string): HeapSample | null {
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as {
      heapUsed: number
      heapTotal: number
      external: number
      liveAfterMajorGc: number | null
      majorGcs: number
      loopDelayMaxMs?: number
    }
    const toMiB = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10
    return {
      usedMiB: toMiB(m.heapUsed),
      totalMiB: toMiB(m.heapTotal),
      externalMiB: toMiB(m.external),
      liveMiB: m.liveAfterMajorGc === null ? null : toMiB(m.liveAfterMajorGc),
      majorGcs: m.majorGcs,
      loopDelayMaxMs: Math.round(m.loopDelayMaxMs ?? 0),
    }
  } catch {
    return null
  }
}
