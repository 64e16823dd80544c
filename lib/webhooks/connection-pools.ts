import type { LookupAddress } from 'node:dns'
import { LRUCache } from 'lru-cache'
import { Agent } from 'undici'
import type { VettedTarget } from './url-guard'

/**
 * Keep-alive connections for webhook deliveries, reused only for the address they were
 * vetted for. Every attempt still resolves and vets the host afresh (spec "Delivery rules" 5);
 * the answer picks the pool, keyed by the vetted addresses, the host (also the TLS server
 * name) and the port. A pool's connector can only dial the addresses in its key, so a socket
 * it hands out always leads to an address this very attempt vetted: when the name re-resolves
 * elsewhere, the new answer is vetted and gets a pool of its own, and a refused answer never
 * reaches a pool at all (DNS rebinding). undici does the pooling; this only chooses the pool.
 */

export interface ConnectionPoolsOptions {
  /** Connect, headers and body timeout of every request (the attempt's deadline). */
  timeoutMs: number
  /** Extra trusted CA certificates (PEM), for tests' self-signed receivers only. */
  ca?: string | string[]
  /** Pools kept at once; the least recently used is closed beyond this. */
  maxPools?: number
  /**
   * Connections per pool: the most requests one receiver address has in flight from us. It
   * matches the sweep's overall bound, so endpoints sharing a host (one pool) are held back by
   * their per-endpoint bound, not by this.
   */
  connectionsPerPool?: number
  /** How long an idle connection stays open (lower if the receiver says so). */
  keepAliveMs?: number
}

const DEFAULT_MAX_POOLS = 256
const DEFAULT_CONNECTIONS_PER_POOL = 32
// Below Node's own 5 s server keep-alive, so we close an idle socket before a typical
// receiver does and rarely write into one it is closing.
const DEFAULT_KEEP_ALIVE_MS = 4_000

/**
 * Hands the connector exactly the vetted addresses. Node 20's connector asks with
 * `{all: true}` (autoSelectFamily); older paths want the single-address callback.
 */
function pinnedLookup(addresses: readonly { address: string; family: 4 | 6 }[]) {
  return (
    _hostname: string,
    options: { all?: boolean },
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    if (options?.all)
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      )
    else callback(null, addresses[0]!.address, addresses[0]!.family)
  }
}

/** The pool key: the vetted address set (order-free), the host (TLS server name) and the port. */
function poolKey(target: VettedTarget): string {
  const addresses = target.addresses.map((a) => a.address).sort()
  return `${addresses.join(',')}|${target.hostname}|${target.port}`
}

export class ConnectionPools {
  private readonly pools: LRUCache<string, Agent>
  private opened = 0
  private readonly closing = new Set<Promise<void>>()
  private closed = false

  constructor(private readonly options: ConnectionPoolsOptions) {
    this.pools = new LRUCache<string, Agent>({
      max: options.maxPools ?? DEFAULT_MAX_POOLS,
      // close() lets requests already on the evicted pool finish, then ends its sockets.
      dispose: (agent) => {
        const closing = agent.close().catch(() => {})
        this.closing.add(closing)
        void closing.finally(() => this.closing.delete(closing))
      },
    })
  }

  /**
   * The dispatcher for a target vetTarget has just vetted. Call request() in the same tick,
   * so that no eviction can close the pool in between.
   */
  dispatcherFor(target: VettedTarget): Agent {
    // A pool opened after close() would never be closed: its sockets would outlive the owner.
    if (this.closed) throw new Error('webhook connection pools are closed')
    const key = poolKey(target)
    let agent = this.pools.get(key)
    if (!agent) {
      agent = new Agent({
        connect: {
          lookup: pinnedLookup(target.addresses),
          timeout: this.options.timeoutMs,
          ...(this.options.ca ? { ca: this.options.ca } : {}),
        },
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        keepAliveTimeout: this.options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
        keepAliveMaxTimeout: this.options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
        connections: this.options.connectionsPerPool ?? DEFAULT_CONNECTIONS_PER_POOL,
      })
      this.pools.set(key, agent)
      this.opened++
    }
    return agent
  }

  /** Pools open now and pools opened in total (tests and the bench read these). */
  stats(): { open: number; opened: number } {
    return { open: this.pools.size, opened: this.opened }
  }

  /** Closes every pool (their in-flight requests finish first). */
  async close(): Promise<void> {
    this.closed = true
    this.pools.clear()
    await Promise.all(this.closing)
  }
}
