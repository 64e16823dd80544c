import { readdirSync, readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import autocannon from 'autocannon'

/**
 * The load generators of the Data API benchmark, all at a fixed offered rate:
 *
 * - autocannon with `overallRate` (closed loop per connection). autocannon gives each
 *   connection its quota per second and sends it back to back at the start of each second,
 *   so what the server sees is bursts of up to `connections` concurrent requests.
 * - a paced open loop: one call every 1/rate seconds whatever the previous ones do. Used for
 *   HTTP and for the raw SQL, so that "API vs raw query" compares the same arrival pattern.
 *
 * Both are bounded in time whatever the server does: autocannon runs for a duration, and the
 * paced loop sends nothing while `maxInFlight` calls are outstanding (counted as skipped),
 * so a server slower than the rate gets a bounded backlog instead of minutes of queue that
 * would spill into the next phase. A phase with skipped calls did not sustain the rate and
 * its percentiles are those of the calls that were made.
 *
 * Latencies are kept exactly (floating-point milliseconds): autocannon's own histogram keeps
 * whole milliseconds, too coarse for answers that take 1-3 ms.
 */

export interface Latency {
  p50: number
  p90: number
  p99: number
  max: number
  mean: number
}

export interface PhaseResult {
  phase: string
  generator: 'autocannon' | 'paced'
  offeredRate: number
  /** Calls answered (any status) per second of the phase. */
  requestsPerSecond: number
  durationSeconds: number
  /** Paced only: calls due that were not made because maxInFlight were outstanding. */
  skipped: number
  /** The offered rate was served: nothing skipped, answers at 95% of the rate or more. */
  sustained: boolean
  count: number
  ok: number
  non2xx: number
  statusCodes: Record<string, number>
  errors: number
  latencyMs: Latency
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits
  return Math.round(value * f) / f
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

export function summarize(latencies: number[]): Latency {
  const sorted = [...latencies].sort((a, b) => a - b)
  return {
    p50: round(percentile(sorted, 50), 2),
    p90: round(percentile(sorted, 90), 2),
    p99: round(percentile(sorted, 99), 2),
    max: round(sorted[sorted.length - 1] ?? 0, 2),
    mean: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length), 2),
  }
}

/** What one request of a phase asks for: the path (with query) and the bearer token. */
export interface GetRequest {
  path: string
  token?: string
}

export type GetSource = () => GetRequest

function authorization(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {}
}

export async function runAutocannonGet(options: {
  phase: string
  baseUrl: string
  source: GetSource
  connections: number
  rate: number
  seconds: number
}): Promise<PhaseResult> {
  const latencies: number[] = []
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.baseUrl,
        method: 'GET',
        connections: options.connections,
        // A duration rather than a request count, so a server slower than the rate cannot
        // stretch the phase; the few requests in flight at the end are not counted.
        duration: options.seconds,
        overallRate: options.rate,
        // autocannon's correction assumes one request per 1/rate of a connection and would
        // invent latencies for its own bursts; the exact latencies are recorded below.
        ignoreCoordinatedOmission: true,
        timeout: 30,
        requests: [
          {
            setupRequest: (req) => {
              const next = options.source()
              return { ...req, path: next.path, headers: { ...req.headers, ...authorization(next.token) } }
            },
          },
        ],
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    )
    // The typings name three arguments; autocannon emits (client, statusCode, bytes, time).
    instance.on('response', (...args: unknown[]) => {
      const time = args[3]
      if (typeof time === 'number') latencies.push(time)
    })
  })
  const statusCodes: Record<string, number> = {}
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0
  const answered = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx']
  const requestsPerSecond = round(answered / result.duration, 1)
  return {
    phase: options.phase,
    generator: 'autocannon',
    offeredRate: options.rate,
    requestsPerSecond,
    durationSeconds: result.duration,
    skipped: 0,
    sustained: requestsPerSecond >= 0.95 * options.rate,
    count: answered,
    ok: result['2xx'],
    non2xx: result.non2xx,
    statusCodes,
    // autocannon counts a timeout among its errors too.
    errors: result.errors,
    latencyMs: summarize(latencies),
  }
}

/** One call of a paced phase; resolves with an HTTP status (the raw SQL answers 200). */
export type Task = () => Promise<number>

/**
 * Starts `task` every 1/rate seconds, `count` times, without waiting for earlier calls.
 * Latency runs from the moment a call starts: the loop never waits for answers, so a slow
 * server still receives the full rate (no coordinated omission) up to `maxInFlight`
 * outstanding calls, and timer jitter of the loop itself (up to a millisecond) is not charged
 * to a query that takes a tenth of one.
 */
export async function runPaced(options: {
  phase: string
  rate: number
  count: number
  task: Task
  maxInFlight?: number
}): Promise<PhaseResult> {
  const maxInFlight = options.maxInFlight ?? 32
  const latencies: number[] = []
  const statusCodes: Record<string, number> = {}
  const interval = 1000 / options.rate
  let ok = 0
  let errors = 0
  let settled = 0
  let started = 0
  let due = 0
  let skipped = 0
  const start = performance.now()
  await new Promise<void>((resolve) => {
    const settle = () => {
      settled++
      if (due === options.count && settled === started) resolve()
    }
    const call = () => {
      started++
      const began = performance.now()
      options.task().then(
        (status) => {
          latencies.push(performance.now() - began)
          statusCodes[String(status)] = (statusCodes[String(status)] ?? 0) + 1
          if (status >= 200 && status < 300) ok++
          settle()
        },
        () => {
          errors++
          settle()
        },
      )
    }
    const tick = () => {
      const now = performance.now()
      while (due < options.count && start + due * interval <= now) {
        due++
        if (started - settled >= maxInFlight) skipped++
        else call()
      }
      if (due < options.count) setTimeout(tick, Math.max(0, start + due * interval - performance.now()))
      else if (settled === started) resolve()
    }
    tick()
  })
  const duration = (performance.now() - start) / 1000
  const requestsPerSecond = round(latencies.length / duration, 1)
  return {
    phase: options.phase,
    generator: 'paced',
    offeredRate: options.rate,
    requestsPerSecond,
    durationSeconds: round(duration, 2),
    skipped,
    sustained: skipped === 0 && requestsPerSecond >= 0.95 * options.rate,
    count: latencies.length,
    ok,
    non2xx: latencies.length - ok,
    statusCodes,
    errors,
    latencyMs: summarize(latencies),
  }
}

/** A GET whose body is read to the end, over a keep-alive agent; resolves with the status. */
export function httpGet(agent: Agent, baseUrl: string, next: GetRequest): Promise<number> {
  const target = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: next.path,
        method: 'GET',
        agent,
        timeout: 30_000,
        headers: authorization(next.token),
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error('request timed out')))
    req.on('error', reject)
    req.end()
  })
}

export function keepAliveAgent(): Agent {
  // Sockets are opened as needed: a server that falls behind sees more concurrent requests,
  // as it would from independent clients; the cap only keeps a stalled one from using all ports.
  return new Agent({ keepAlive: true, maxSockets: 64 })
}

// USER_HZ: 100 on every mainstream Linux build; /proc reports CPU time in these ticks.
const MS_PER_TICK = 10

function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which may itself hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return null
  }
}

/**
 * utime + stime, plus cutime + cstime: the time of children already exited and reaped, such
 * as Postgres' parallel workers, which would otherwise vanish from the count.
 */
function ticksOf(fields: string[]): number {
  return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])
}

function processes(): number[] {
  try {
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number)
  } catch {
    return []
  }
}

/** CPU milliseconds used so far by a process and its descendants (null off Linux). */
export function treeCpuMs(root: number): number | null {
  const parent = new Map<number, number>()
  const ticks = new Map<number, number>()
  for (const pid of processes()) {
    const fields = statFields(pid)
    if (!fields) continue
    parent.set(pid, Number(fields[1]))
    ticks.set(pid, ticksOf(fields))
  }
  if (!ticks.has(root)) return null
  let total = 0
  for (const [pid, used] of ticks) {
    for (let p: number | undefined = pid; p && p > 1; p = parent.get(p)) {
      if (p === root) {
        total += used
        break
      }
    }
  }
  return total * MS_PER_TICK
}

/** CPU milliseconds used so far by every Postgres process of the machine. */
export function postgresCpuMs(): number | null {
  let total = 0
  let seen = false
  for (const pid of processes()) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue
    } catch {
      continue
    }
    const fields = statFields(pid)
    if (!fields) continue
    seen = true
    total += ticksOf(fields)
  }
  return seen ? total * MS_PER_TICK : null
}
