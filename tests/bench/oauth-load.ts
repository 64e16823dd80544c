import { Pool } from 'undici'
import { type Latency, round, summarize } from './harness/stats'

/**
 * The load of the OAuth token benchmark: a closed loop of `connections` workers over as many
 * keep-alive connections, each sending its next refresh_token grant as soon as the previous
 * answer is read, until `count` requests have been sent. A request count rather than a
 * duration: every token handed out is presented exactly once and every answer is counted, so
 * no rotated token can be sent again by a retry or left half-used at the end of a timer.
 *
 * The same generator drives both servers; it reads each answer's body, because a 200 that
 * lacks a new refresh token would be a failed rotation and must not count as served.
 */

export interface PhaseResult {
  phase: string
  connections: number
  requests: number
  requestsPerSecond: number
  durationSeconds: number
  /** Answered 200 with a new access and refresh token. */
  ok: number
  /** Answered with a status outside 2xx. */
  non2xx: number
  /** Answered 2xx but without the token pair: a rotation that did not happen. */
  malformed: number
  /** No answer at all (connection refused or reset). */
  errors: number
  statusCodes: Record<string, number>
  /** The first few failure bodies, to say why (invalid_grant, server_error, ...). */
  failures: string[]
  latencyMs: Latency
}

export interface TokenTarget {
  baseUrl: string
  /** The token endpoint's path: /api/oauth/token here, /token for oidc-provider. */
  path: string
  clientId: string
}

/** A successful refresh answers a new access token and a new (rotated) refresh token. */
function rotated(body: string): boolean {
  try {
    const parsed: unknown = JSON.parse(body)
    if (typeof parsed !== 'object' || parsed === null) return false
    const record = parsed as Record<string, unknown>
    return typeof record.access_token === 'string' && typeof record.refresh_token === 'string'
  } catch {
    return false
  }
}

interface Request {
  method: 'POST' | 'OPTIONS'
  headers?: Record<string, string>
  body?: string
}

/** What a phase asks for each time, and whether an answer is the one expected. */
interface PhaseSpec {
  phase: string
  baseUrl: string
  path: string
  connections: number
  count: number
  next: () => Request
  /** 'ok' counts it as served; 'malformed' is a 2xx that is not the expected answer. */
  judge: (status: number, body: string) => 'ok' | 'malformed' | 'failed'
}

async function runPhase(spec: PhaseSpec): Promise<PhaseResult> {
  const pool = new Pool(spec.baseUrl, {
    connections: spec.connections,
    pipelining: 1,
    // A stalled server fails the phase in bounded time instead of hanging the run.
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  })
  const latencies: number[] = []
  const statusCodes: Record<string, number> = {}
  const failures: string[] = []
  let ok = 0
  let non2xx = 0
  let malformed = 0
  let errors = 0
  let sent = 0
  const worker = async () => {
    while (sent < spec.count) {
      sent++
      const request = spec.next()
      const began = performance.now()
      try {
        const response = await pool.request({
          path: spec.path,
          method: request.method,
          headers: request.body
            ? { 'content-type': 'application/x-www-form-urlencoded', ...request.headers }
            : request.headers,
          body: request.body,
        })
        const text = await response.body.text()
        latencies.push(performance.now() - began)
        const code = String(response.statusCode)
        statusCodes[code] = (statusCodes[code] ?? 0) + 1
        const verdict = spec.judge(response.statusCode, text)
        if (verdict === 'ok') ok++
        else {
          if (verdict === 'malformed') malformed++
          else non2xx++
          if (failures.length < 5) failures.push(`${code} ${text.slice(0, 300)}`)
        }
      } catch (error) {
        errors++
        if (failures.length < 5) failures.push(error instanceof Error ? error.message : String(error))
      }
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: spec.connections }, worker))
  const seconds = (performance.now() - started) / 1000
  await pool.close()
  return {
    phase: spec.phase,
    connections: spec.connections,
    requests: spec.count,
    requestsPerSecond: round(latencies.length / seconds, 1),
    durationSeconds: round(seconds, 2),
    ok,
    non2xx,
    malformed,
    errors,
    statusCodes,
    failures,
    latencyMs: summarize(latencies),
  }
}

const form = (params: Record<string, string>) => new URLSearchParams(params).toString()

/**
 * Sends `count` refresh_token grants, each with the next token of `tokens` (which must hold at
 * least `count` unused ones; the cursor is advanced so that the next phase continues after).
 */
export function runRefreshPhase(options: {
  phase: string
  target: TokenTarget
  tokens: { token: string; clientId: string }[]
  cursor: { next: number }
  connections: number
  count: number
}): Promise<PhaseResult> {
  const { target, tokens, cursor } = options
  if (cursor.next + options.count > tokens.length)
    throw new Error(`${options.phase}: ${options.count} requests need more tokens than are left`)
  return runPhase({
    phase: options.phase,
    baseUrl: target.baseUrl,
    path: target.path,
    connections: options.connections,
    count: options.count,
    next: () => {
      // Each chain's token goes with the client it was issued to (--clients spreads them).
      const credential = tokens[cursor.next++]!
      return {
        method: 'POST',
        body: form({
          grant_type: 'refresh_token',
          refresh_token: credential.token,
          client_id: credential.clientId,
        }),
      }
    },
    judge: (status, body) =>
      status >= 200 && status < 300 ? (rotated(body) ? 'ok' : 'malformed') : 'failed',
  })
}

/**
 * The cost around the grant, for the same endpoint: `preflight` is a CORS preflight (no
 * database), `unknown` a well-formed refresh token that does not exist (the client lookup and
 * the token lookup, then invalid_grant). Both are expected answers, counted as ok.
 */
export function runProbePhase(options: {
  phase: 'preflight' | 'unknown'
  target: TokenTarget
  connections: number
  count: number
  /** A token in the server's own format, so that only the lookup rejects it. */
  unknownToken: () => string
}): Promise<PhaseResult> {
  const { target } = options
  return runPhase({
    phase: options.phase,
    baseUrl: target.baseUrl,
    path: target.path,
    connections: options.connections,
    count: options.count,
    next: () =>
      options.phase === 'preflight'
        ? {
            method: 'OPTIONS',
            // What a browser-based client sends before its token request.
            headers: { origin: 'http://127.0.0.1:1', 'access-control-request-method': 'POST' },
          }
        : {
            method: 'POST',
            body: form({
              grant_type: 'refresh_token',
              refresh_token: options.unknownToken(),
              client_id: target.clientId,
            }),
          },
    judge: (status, body) => {
      if (options.phase === 'preflight') return status >= 200 && status < 300 ? 'ok' : 'failed'
      return status === 400 && body.includes('invalid_grant') ? 'ok' : 'failed'
    },
  })
}
