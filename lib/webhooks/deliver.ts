import type { LookupAddress } from 'node:dns'
import { Agent, request } from 'undici'
import packageJson from '@/package.json'
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

/**
 * Hands the connector exactly the vetted addresses. Node 20's connector asks with
 * `{all: true}` (autoSelectFamily); older paths want the single-address callback.
 */
function pinnedLookup(target: VettedTarget) {
  return (
    _hostname: string,
    options: { all?: boolean },
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    if (options?.all)
      callback(
        null,
        target.addresses.map((a) => ({ address: a.address, family: a.family })),
      )
    else callback(null, target.addresses[0]!.address, target.addresses[0]!.family)
  }
}

/**
 * One factory holds the policy: production takes the defaults; tests inject loopback
 * allowances, a fake resolver, a test CA and a short timeout.
 */
export function createDeliverer(options: DelivererOptions = {}): Deliverer {
  const resolver = options.resolver ?? systemResolver
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const now = options.now ?? Date.now
  return async (req) => {
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
    // A fresh agent per attempt: no pooled socket from an earlier resolution can be reused.
    const agent = new Agent({
      connect: {
        lookup: pinnedLookup(target),
        timeout: timeoutMs,
        ...(options.ca ? { ca: options.ca } : {}),
      },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 1,
      connections: 1,
    })
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
      const res = await request(target.url, {
        method: 'POST',
        headers,
        body: req.body,
        dispatcher: agent,
        signal: AbortSignal.timeout(timeoutMs),
      })
      await res.body.dump({ limit: BODY_DRAIN_LIMIT }).catch(() => {})
      const ok = res.statusCode >= 200 && res.statusCode < 300
      return done({ ok, status: res.statusCode, label: ok ? null : badStatus(res.statusCode), sent: true })
    } catch (error) {
      return done({ ok: false, status: null, label: labelFor(error), sent: true })
    } finally {
      agent.destroy().catch(() => {})
    }
  }
}
