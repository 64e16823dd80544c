import autocannon from 'autocannon'
import { authorization, type GetSource, type PhaseResult } from './harness/pace'
import { round, summarize } from './harness/stats'

/**
 * The autocannon generator of the Data API benchmark (harness/pace.ts has the paced open
 * loop): autocannon with `overallRate` (closed loop per connection) gives each connection its
 * quota per second and sends it back to back at the start of each second, so what the server
 * sees is bursts of up to `connections` concurrent requests. Bounded by a duration whatever
 * the server does. Latencies are kept exactly (floating-point milliseconds): autocannon's own
 * histogram keeps whole milliseconds, too coarse for answers that take 1-3 ms.
 */

export async function runAutocannonGet(options: {
  phase: string
  baseUrl: string
  source: GetSource
  connections: number
  /** Requests per second over all connections; undefined for as fast as the server answers. */
  rate?: number
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
        // autocannon's correction assumes one request per 1/rate of a connection and would
        // invent latencies for its own bursts; the exact latencies are recorded below.
        ...(options.rate === undefined ? {} : { overallRate: options.rate, ignoreCoordinatedOmission: true }),
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
    offeredRate: options.rate ?? 0,
    requestsPerSecond,
    durationSeconds: result.duration,
    skipped: 0,
    sustained: options.rate === undefined || requestsPerSecond >= 0.95 * options.rate,
    count: answered,
    ok: result['2xx'],
    non2xx: result.non2xx,
    statusCodes,
    // autocannon counts a timeout among its errors too.
    errors: result.errors,
    latencyMs: summarize(latencies),
  }
}
