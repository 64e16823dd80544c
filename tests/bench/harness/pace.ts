import { Agent, request } from 'node:http'
import { type Latency, round, summarize } from './stats'

/**
 * The paced open loop every benchmark with a fixed offered rate uses: one call every 1/rate
 * seconds whatever the previous ones do, for HTTP and for raw SQL alike, so that "API vs raw
 * query" compares the same arrival pattern.
 *
 * Bounded in time whatever the server does: the loop sends nothing while `maxInFlight` calls
 * are outstanding (counted as skipped), so a server slower than the rate gets a bounded
 * backlog instead of minutes of queue that would spill into the next phase. A phase with
 * skipped calls did not sustain the rate and its percentiles are those of the calls that were
 * made. Latencies are kept exactly (floating-point milliseconds).
 *
 * (The ingest benchmark's POST generators in load.ts predate this one and measure latency from
 * the moment a request was due; their figures are published, so they keep their own loop.)
 */

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

/** What one request of a phase asks for: the path (with query) and the bearer token. */
export interface GetRequest {
  path: string
  token?: string
}

export type GetSource = () => GetRequest

export function authorization(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {}
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
