import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { freePort } from '../../helpers/free-port'
import { type PhaseResult, runClosedLoop } from '../load'
import { type CpuUsage, cpuBetween, cpuMsPerRequest, cpuSnapshot } from './machine'
import { baseEnv, type RunningProcess, startBaselineServer, startHttpProcess } from './server'
import { type Latency, round } from './stats'
import { textTable } from './table'

/**
 * The floor: what the same request costs when nothing of ours handles it. A benchmark that
 * goes through Next measures, in the same run, a minimal Next 16 app (floor-app/: plain
 * route handlers, no middleware, no instrumentation, `next start`) and a bare `node:http`
 * server (baseline-server.ts) answering the same routes, and reports its own figures as
 * ratios to both. A baseline taken at another time, or while other work shared the machine,
 * compares nothing: see docs/benchmarks.md#the-floor.
 *
 * Both serve:
 *   POST /floor/json         read the body, JSON.parse it, answer 200 {"ok":true}
 *   GET  /floor/json?bytes=N answer 200 with about N bytes of JSON (built once per N)
 *   POST /floor/form         parse an application/x-www-form-urlencoded body, answer ~1 KB JSON
 *   OPTIONS on each          204
 */

export interface Floor {
  next: RunningProcess
  bare: RunningProcess
  stop(): Promise<void>
}

const APP_DIR = path.resolve(import.meta.dirname, '../floor-app')
// Inside APP_DIR; ignored by git (.next-*/), Biome (the ignore file) and tsconfig.
const DIST_DIR = '.next-floor'
const KEY_FILE = path.join(APP_DIR, DIST_DIR, 'floor-build-key')
const nextRoot = path.dirname(createRequire(import.meta.url).resolve('next/package.json'))
const NEXT_BIN = path.join(nextRoot, 'dist', 'bin', 'next')
const floorEnv = { NEXT_TELEMETRY_DISABLED: '1', FLOOR_DIST_DIR: DIST_DIR }

/** The floor app's sources, relative to APP_DIR, without its build. */
function sources(dir = APP_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith('.'))
    .flatMap((entry) => {
      const full = path.join(dir, entry.name)
      return entry.isDirectory() ? sources(full) : [path.relative(APP_DIR, full)]
    })
    .sort()
}

/** What the build depends on: Next's version and the app's files. */
function buildKey(): string {
  const hash = createHash('sha256')
  const { version } = JSON.parse(readFileSync(path.join(nextRoot, 'package.json'), 'utf8')) as {
    version: string
  }
  hash.update(`next ${version} webpack\n`)
  for (const file of sources()) hash.update(`${file}\n`).update(readFileSync(path.join(APP_DIR, file)))
  return hash.digest('hex')
}

/**
 * Builds the floor app when its build is missing or stale. Webpack, not Turbopack: Turbopack
 * (Next 16.4) built into the floor app the enclosing project's proxy.ts and instrumentation.ts,
 * which would put our middleware and our service start-up into the floor.
 */
export async function ensureFloorBuild(progress: (line: string) => void = () => {}): Promise<void> {
  const key = buildKey()
  if (existsSync(KEY_FILE) && readFileSync(KEY_FILE, 'utf8') === key) return
  progress('floor: building the minimal Next app (once per Next version and app change)')
  rmSync(path.join(APP_DIR, DIST_DIR), { recursive: true, force: true })
  let output = ''
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [NEXT_BIN, 'build', '--webpack', APP_DIR], {
      cwd: process.cwd(),
      env: { ...baseEnv(), ...floorEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const append = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-20_000)
    }
    child.stdout.on('data', append)
    child.stderr.on('data', append)
    child.once('error', reject)
    child.once('exit', resolve)
  })
  if (code !== 0) throw new Error(`floor: next build exited with ${code}:\n${output}`)
  writeFileSync(KEY_FILE, key)
}

/**
 * The floor's two servers on 127.0.0.1, each on its own port and in its own process, with a
 * V8 CPU profile of each (`next-floor/`, `bare/`) in `cpuProfileDir` when given.
 */
export async function startFloor(options: { cpuProfileDir?: string } = {}): Promise<Floor> {
  await ensureFloorBuild((line) => process.stderr.write(`[bench] ${line}\n`))
  const profile = (name: string) =>
    options.cpuProfileDir ? path.join(options.cpuProfileDir, name) : undefined
  const port = await freePort()
  const next = await startHttpProcess({
    name: 'next start (floor)',
    args: [NEXT_BIN, 'start', APP_DIR, '-p', String(port), '-H', '127.0.0.1'],
    port,
    env: floorEnv,
    cpuProfileDir: profile('next-floor'),
    ready: { path: '/floor/json', method: 'OPTIONS', status: 204 },
  })
  let bare: RunningProcess
  try {
    bare = await startBaselineServer(undefined, { cpuProfileDir: profile('bare') })
  } catch (error) {
    await next.stop()
    throw error
  }
  return { next, bare, stop: async () => void (await Promise.all([next.stop(), bare.stop()])) }
}

export interface Ratios {
  vsFloor: number
  vsBare: number
}

/** `ours` as a fraction of the floor's and of bare Node's figure (3 decimals; 0 when they are 0). */
export function floorRatios(ours: number, floorNext: number, bare: number): Ratios {
  const ratio = (of: number) => (of > 0 ? round(ours / of, 3) : 0)
  return { vsFloor: ratio(floorNext), vsBare: ratio(bare) }
}

/** What a comparison needs of a measured configuration, ours or the floor's. */
export interface ComparedFigures {
  requestsPerSecond: number
  latencyMs: Latency
  serverCpuMsPerRequest: number | null
  /** Postgres' CPU per request; null where there is no Postgres (the floor, PGlite). */
  postgresCpuMsPerRequest?: number | null
}

export interface FloorFigures extends ComparedFigures {
  target: 'next-floor' | 'bare'
  phase: PhaseResult
  cpu: CpuUsage
}

export interface FloorPair {
  next: FloorFigures
  bare: FloorFigures
}

export interface FloorPhaseOptions {
  floor: Floor
  method: 'GET' | 'POST'
  /** '/floor/json' or '/floor/form'. */
  path: string
  /** The body of the n-th request (POST); the same bodies as the measured route gets. */
  body?: (n: number) => string
  /** GET: the size of the answer, sent as `?bytes=`. */
  bytes?: number
  /** POST: default application/json. */
  contentType?: string
  connections: number
  seconds: number
  /** Requests sent before the measurement (default 300), so both run warm. */
  warmupRequests?: number
}

/**
 * The maximum throughput of one floor route on the minimal Next app and on bare Node, one after
 * the other (never both at once): closed loop on `connections`, about `seconds` each, with
 * the server's CPU per request.
 */
export async function measureFloorPhase(options: FloorPhaseOptions): Promise<FloorPair> {
  const path = options.bytes === undefined ? options.path : `${options.path}?bytes=${options.bytes}`
  const measureOn = async (target: FloorFigures['target'], server: RunningProcess): Promise<FloorFigures> => {
    let n = 0
    const source = () => ({ body: options.body?.(n++) ?? '' })
    const shape = { method: options.method, contentType: options.contentType }
    const url = `${server.baseUrl}${path}`
    const common = { url, source, connections: options.connections, ...shape }
    const warmup = await runClosedLoop({ phase: 'warmup', amount: options.warmupRequests ?? 300, ...common })
    const before = cpuSnapshot(server.pid, false)
    const phase = await runClosedLoop({
      phase: `${target} ${options.method} ${path}`,
      seconds: options.seconds,
      estimate: warmup.requestsPerSecond,
      ...common,
    })
    const after = cpuSnapshot(server.pid, false)
    return {
      target,
      requestsPerSecond: phase.requestsPerSecond,
      latencyMs: phase.latencyMs,
      serverCpuMsPerRequest: cpuMsPerRequest(before, after, phase.ok + phase.non2xx).server,
      phase,
      cpu: cpuBetween(before, after),
    }
  }
  const next = await measureOn('next-floor', options.floor.next)
  const bare = await measureOn('bare', options.floor.bare)
  return { next, bare }
}

/** Problems of a floor phase that make it invalid: answers other than 2xx, errors. */
export function floorProblems(pair: FloorPair): string[] {
  return [pair.next, pair.bare].flatMap(({ phase }) => [
    ...(phase.non2xx > 0
      ? [`${phase.phase}: ${phase.non2xx} non-2xx ${JSON.stringify(phase.statusCodes)}`]
      : []),
    ...(phase.errors > 0 ? [`${phase.phase}: ${phase.errors} errors`] : []),
  ])
}

/** Floor phases during which other processes used more than `percent` of a core. */
export function floorDisturbed(pair: FloorPair, percent: number): string[] {
  return [pair.next, pair.bare]
    .filter((f) => (f.cpu.otherPercent ?? 0) > percent)
    .map(
      (f) =>
        `${f.phase.phase}: other processes used ${f.cpu.otherPercent}% of a core meanwhile: figures disturbed`,
    )
}

export interface FloorComparison {
  throughput: Ratios
  /** Server CPU per request as a multiple of the floor's (lower is better); null if unmeasured. */
  serverCpu: Ratios | null
}

/** Ours against the floor pair, for the JSON output. */
export function floorComparison(ours: ComparedFigures, floor: FloorPair): FloorComparison {
  const cpu = ours.serverCpuMsPerRequest
  const floorCpu = floor.next.serverCpuMsPerRequest
  const bareCpu = floor.bare.serverCpuMsPerRequest
  return {
    throughput: floorRatios(
      ours.requestsPerSecond,
      floor.next.requestsPerSecond,
      floor.bare.requestsPerSecond,
    ),
    serverCpu:
      cpu === null || floorCpu === null || bareCpu === null ? null : floorRatios(cpu, floorCpu, bareCpu),
  }
}

export const FLOOR_TABLE_HEADER = [
  'config',
  'max req/s',
  'p99 ms',
  'CPU ms/req srv',
  'CPU ms/req pg',
  'req/s vs floor',
  'req/s vs bare',
  'srv CPU vs floor',
  'srv CPU vs bare',
]

const cell = (value: number | null | undefined, digits = 2) =>
  value === null || value === undefined ? '-' : String(round(value, digits))

/** One row of the "vs floor / vs bare" table (FLOOR_TABLE_HEADER). */
export function floorRow(label: string, ours: ComparedFigures, floor: FloorPair): string[] {
  const c = floorComparison(ours, floor)
  return [
    label,
    String(Math.round(ours.requestsPerSecond)),
    cell(ours.latencyMs.p99, 1),
    cell(ours.serverCpuMsPerRequest, 3),
    cell(ours.postgresCpuMsPerRequest, 3),
    cell(c.throughput.vsFloor, 3),
    cell(c.throughput.vsBare, 3),
    cell(c.serverCpu?.vsFloor, 2),
    cell(c.serverCpu?.vsBare, 2),
  ]
}

/**
 * The table of `rows` (label and figures) with the floor's own two rows first, for a
 * benchmark's printed output.
 */
export function floorTable(rows: { label: string; figures: ComparedFigures }[], floor: FloorPair): string[] {
  const all = [
    { label: 'next-floor', figures: floor.next },
    { label: 'bare node:http', figures: floor.bare },
    ...rows,
  ]
  return textTable(
    FLOOR_TABLE_HEADER,
    all.map((r) => floorRow(r.label, r.figures, floor)),
  )
}
