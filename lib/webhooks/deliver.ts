import { request } from 'undici'
import packageJson from '@/package.json'
import { ConnectionPools } from './connection-pools'
import { badStatus, type ErrorLabel, labelFor } from './labels'
import { signatureValue } from './signature'
import { type AddressPolicy, type Resolver, systemResolver, type VettedTarget, vetTarget } from './url-guard'

export const USER_AGENT = `SessionReplayIssues-Webhooks/${packageJson.version}`
const DEFAULT_TIMEOUT_MS = 10_000
// Only the status matters; a receiver's body is read (to free the socket) up to this, never kept.
const BODY_DRAIN_LIMIT = 64 * 1024

export interface DelivererOptions extends AddressPolicy {
  resolver?: Resolver
  /** Extra trusted CA certificates (PEM), for tests' self-signed receivers only. */
  ca?: string | string[]
  /** Per-attempt deadline for connect, headers and body together; 10 s by default (spec). */
  timeoutMs?: number
  /** Test seam: the clock for the signature's `t`. */
  now?: () => number
  /** Keep-alive pools kept at once (one per vetted address, host and port); 256 by default. */
  maxPools?: number
  /** Connections per pool; 32 by default. */
  connectionsPerPool?: number
}

export interface DeliveryRequest {
  url: string
  secret: string
  /** The frozen envelope bytes, identical on every attempt. */
  body: string
  eventId: string
  eventType: string
  test?: boolean
}

export interface DeliveryOutcome {
  ok: boolean
  /** The HTTP status, when a response arrived. */
  status: number | null
  label: ErrorLabel | null
  startedAt: Date
  durationMs: number
  /** Whether any byte may have left the machine (false for a url_unsafe refusal). */
  sent: boolean
}

export type Deliverer = (req: DeliveryRequest) => Promise<DeliveryOutcome>

/** The real deliverer: its keep-alive pools can be inspected and closed. */
export interface PooledDeliverer extends Deliverer {
  pools: ConnectionPools
  close(): Promise<void>
}

/**
 * One factory holds the policy: production takes the defaults; tests inject loopback
 * allowances, a fake resolver, a test CA and a short timeout.
 */
export function createDeliverer(options: DelivererOptions = {}): PooledDeliverer {
  const resolver = options.resolver ?? systemResolver
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const now = options.now ?? Date.now
  const pools = new ConnectionPools({
    timeoutMs,
    ca: options.ca,
    maxPools: options.maxPools,
    connectionsPerPool: options.connectionsPerPool,
  })
  const deliver: Deliverer = async (req) => {
    const startedAt = new Date()
    const started = performance.now()
    const done = (o: Omit<DeliveryOutcome, 'startedAt' | 'durationMs'>): DeliveryOutcome => ({
      ...o,
      startedAt,
      durationMs: Math.round(performance.now() - started),
    })
    let target: VettedTarget
    try {
      // Resolved afresh on every attempt; the connection below can only use these answers.
      target = await vetTarget(req.url, resolver, options)
    } catch (error) {
      return done({ ok: false, status: null, label: labelFor(error), sent: false })
    }
    const timestamp = Math.floor(now() / 1000)
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'service-signature': signatureValue(req.secret, timestamp, req.body),
      'service-webhook-id': req.eventId,
      'service-event': req.eventType,
    }
    if (req.test) headers['service-webhook-test'] = '1'
    try {
      // undici's request() never follows redirects: a 3xx is reported as bad_status:3xx.
      // The pool is chosen by the addresses vetted just above, in the same tick as the
      // request, so a kept-alive socket is reused only towards an address vetted now.
      const res = await request(target.url, {
        method: 'POST',
        headers,
        body: req.body,
        dispatcher: pools.dispatcherFor(target),
        signal: AbortSignal.timeout(timeoutMs),
      })
      await res.body.dump({ limit: BODY_DRAIN_LIMIT }).catch(() => {})
      const ok = res.statusCode >= 200 && res.statusCode < 300
      return done({ ok, status: res.statusCode, label: ok ? null : badStatus(res.statusCode), sent: true })
    } catch (error) {
      return done({ ok: false, status: null, label: labelFor(error), sent: true })
    }
  }
  return Object.assign(deliver, { pools, close: () => pools.close() })
}
