import { Agent, request } from 'node:http'
import autocannon from 'autocannon'
import { type Latency, round, summarize } from './harness/stats'

/**
 * The load of one benchmark phase, and what came back. Two generators:
 *
 * - autocannon (closed loop: N connections, each sends its next request when the previous
 *   answer arrives), for the maximum throughput and for `overallRate`. Runs are bounded by a
 *   request count rather than a duration so that no request is abandoned in flight: every
 *   request sent is answered and counted, and the database can be checked against the 2xx.
 *   autocannon's `overallRate` gives each connection a quota per second and sends it back to
 *   back at the start of each second, so it measures bursts of N concurrent requests.
 * - a paced open loop: one request every 1/rate seconds whatever the answers do, latency
 *   measured from when the request was due (no coordinated omission). This is what 200
 *   browsers flushing independently look like.
 */

export interface NextRequest {
  /** Ignored for GET. */
  body: string
  /** The ingest key; none for the floor's routes (harness/floor.ts). */
  key?: string
  /** Path and query; the phase's URL's when unset. */
  path?: string
  /** The browser's address, as a trusted proxy would append it (`TRUSTED_PROXY_HOPS=1`). */
  address?: string
}

/**
 * The headers a request of the source adds: its key, and the proxy's `X-Forwarded-For` for a
 * request that names its browser's address.
 */
const requestHeaders = (next: NextRequest): Record<string, string> => ({
  ...(next.key ? { 'x-service-api-key': next.key } : {}),
  ...(next.address ? { 'x-forwarded-for': next.address } : {}),
})

/** What every request of a phase is: POST JSON (ingest) unless the phase says otherwise. */
export interface RequestShape {
  method?: 'GET' | 'POST'
  contentType?: string
}

export type RequestSource = () => NextRequest

export interface PhaseResult {
  phase: string
  connections: number
  /** Requests answered (any status), per second of the phase. */
  requestsPerSecond: number
  durationSeconds: number
  sent: number
  ok: number
  non2xx: number
  statusCodes: Record<string, number>
  errors: number
  timeouts: number
  latencyMs: Latency
}

/** What came back from one or more runs of a phase, before it is summarised. */
interface Tally {
  latencies: number[]
  statusCodes: Record<string, number>
  ok: number
  sent: number
  errors: number
  timeouts: number
  seconds: number
}

const emptyTally = (): Tally => ({
  latencies: [],
  statusCodes: {},
  ok: 0,
  sent: 0,
  errors: 0,
  timeouts: 0,
  seconds: 0,
})

interface AutocannonRun extends RequestShape {
  url: string
  source: RequestSource
  connections: number
  amount: number
  overallRate?: number
}

/** One autocannon run, each answer recorded into `tally` with its exact latency. */
function autocannonInto(options: AutocannonRun, tally: Tally): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const instance = autocannon(
      {
        url: options.url,
        method: options.method ?? 'POST',
        connections: options.connections,
        amount: options.amount,
        ...(options.overallRate ? { overallRate: options.overallRate } : {}),
        timeout: 30,
        headers:
          options.method === 'GET' ? {} : { 'content-type': options.contentType ?? 'application/json' },
        requests: [
          {
            setupRequest: (req) => {
              const next = options.source()
              return {
                ...req,
                ...(options.method === 'GET' ? {} : { body: next.body }),
                ...(next.path ? { path: next.path } : {}),
                headers: { ...req.headers, ...requestHeaders(next) },
              }
            },
          },
        ],
      },
      (error: unknown, result) => {
        if (error) return reject(error)
        tally.sent += result.requests.sent
        tally.errors += result.errors
        tally.timeouts += result.timeouts
        tally.seconds += (performance.now() - started) / 1000
        resolve()
      },
    )
    // autocannon's own histogram has 1 ms steps and, with a rate, "corrects" each answer with
    // an expected interval of ceil(1 / per-connection rate) = 1 ms, recording a slow answer as
    // a ramp of made-up fast ones; the raw latencies are kept here instead.
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      tally.latencies.push(responseTime)
      const code = String(statusCode)
      tally.statusCodes[code] = (tally.statusCodes[code] ?? 0) + 1
      if (statusCode >= 200 && statusCode < 300) tally.ok++
    })
  })
}

export interface ClosedLoopPhase extends RequestShape {
  phase: string
  url: string
  source: RequestSource
  connections: number
  /** A fixed number of requests (warm-up), or ... */
  amount?: number
  /** ... run for about this long, starting from this many requests per second as a guess. */
  seconds?: number
  estimate?: number
}

/**
 * As many requests as the server answers on N connections. A timed phase runs as a few
 * count-bounded runs, each sized from the pace of the one before, until it has lasted long
 * enough: autocannon abandons the requests in flight when a duration ends, and those could
 * be stored without ever being counted.
 */
export async function runClosedLoop(options: ClosedLoopPhase): Promise<PhaseResult> {
  const tally = emptyTally()
  const run = (amount: number) =>
    autocannonInto(
      {
        url: options.url,
        source: options.source,
        connections: options.connections,
        amount,
        method: options.method,
        contentType: options.contentType,
      },
      tally,
    )
  if (options.amount !== undefined) await run(options.amount)
  else {
    const seconds = options.seconds ?? 10
    let pace = Math.max(1, options.estimate ?? 100)
    while (tally.seconds < seconds * 0.95) {
      const before = tally.latencies.length
      const startedAt = tally.seconds
      // Aim a little past the end: a second short run costs more than a slightly long one.
      const amount = Math.max(options.connections * 4, Math.round(pace * (seconds - tally.seconds) * 1.05))
      await run(Math.min(amount, 200_000))
      pace = (tally.latencies.length - before) / Math.max(0.001, tally.seconds - startedAt)
    }
  }
  return summarise(options.phase, options.connections, tally)
}

export interface FixedRatePhase {
  phase: string
  url: string
  source: RequestSource
  connections: number
  rate: number
  amount: number
}

/** autocannon's `overallRate`: each connection sends its share of the rate, once a second. */
export async function runFixedRate(options: FixedRatePhase): Promise<PhaseResult> {
  const tally = emptyTally()
  await autocannonInto(
    {
      url: options.url,
      source: options.source,
      connections: options.connections,
      amount: options.amount,
      overallRate: options.rate,
    },
    tally,
  )
  return summarise(options.phase, options.connections, tally)
}

function summarise(phase: string, connections: number, tally: Tally): PhaseResult {
  const answered = tally.latencies.length
  return {
    phase,
    connections,
    requestsPerSecond: round(answered / Math.max(0.001, tally.seconds), 1),
    durationSeconds: round(tally.seconds, 2),
    sent: tally.sent,
    ok: tally.ok,
    non2xx: answered - tally.ok,
    statusCodes: tally.statusCodes,
    errors: tally.errors,
    timeouts: tally.timeouts,
    latencyMs: summarize(tally.latencies),
  }
}

export interface PacedPhase {
  phase: string
  url: string
  source: RequestSource
  rate: number
  seconds: number
}

export async function runPaced(options: PacedPhase): Promise<PhaseResult> {
  const target = new URL(options.url)
  // Sockets are opened as needed: a server that falls behind sees more concurrent requests,
  // as it would from real browsers; the cap only keeps a stalled server from exhausting ports.
  const agent = new Agent({ keepAlive: true, maxSockets: 256 })
  const total = Math.round(options.rate * options.seconds)
  const interval = 1000 / options.rate
  const latencies: number[] = []
  const statusCodes: Record<string, number> = {}
  let ok = 0
  let errors = 0
  let timeouts = 0
  let settled = 0
  let sent = 0
  const start = performance.now()

  await new Promise<void>((resolve) => {
    const finish = () => {
      settled++
      if (settled === total) resolve()
    }
    const send = (due: number) => {
      // A socket error after a complete answer must not count the request twice.
      let done = false
      const once = (record: () => void) => {
        if (done) return
        done = true
        record()
        finish()
      }
      const next = options.source()
      const body = Buffer.from(next.body)
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          timeout: 30_000,
          headers: {
            'content-type': 'application/json',
            'content-length': body.byteLength,
            ...requestHeaders(next),
          },
        },
        (res) => {
          res.resume()
          res.on('end', () =>
            once(() => {
              latencies.push(performance.now() - due)
              const code = String(res.statusCode ?? 0)
              statusCodes[code] = (statusCodes[code] ?? 0) + 1
              if (res.statusCode && res.statusCode >= 200 && res.statusCode < 300) ok++
            }),
          )
        },
      )
      req.on('timeout', () => {
        timeouts++
        req.destroy(new Error('request timed out'))
      })
      req.on('error', () =>
        once(() => {
          errors++
        }),
      )
      req.end(body)
    }
    const tick = () => {
      const now = performance.now()
      while (sent < total && start + sent * interval <= now) {
        send(start + sent * interval)
        sent++
      }
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * interval - performance.now()))
    }
    tick()
  })
  agent.destroy()
  return summarise(options.phase, 0, {
    latencies,
    statusCodes,
    ok,
    sent,
    errors,
    timeouts,
    seconds: (performance.now() - start) / 1000,
  })
}
