import ipaddr from 'ipaddr.js'
import { getConfig } from '@/lib/config'
import { logger } from '@/lib/log'

/**
 * The client address for every address-keyed limit (sign-in, sign-up, invitations, client
 * registration, unknown ingest keys). A header is believed only where something we trust
 * wrote it, in this order:
 *
 * 1. On Vercel (VERCEL=1), the platform's `x-vercel-forwarded-for` (then `x-real-ip`): Vercel
 *    overwrites both at its edge, whatever the client sent.
 * 2. With TRUSTED_PROXY_HOPS=n behind n proxies that each append to X-Forwarded-For, the nth
 *    entry from the right: the address the outermost trusted proxy saw. With fewer entries
 *    than n, the request skipped a proxy; the leftmost entry (or, with none, the socket, which
 *    Next writes there) is then the furthest address any trusted party saw.
 * 3. Behind our own server (`server.mjs`, what `npm start` runs), the socket address it
 *    stamps into SOCKET_ADDRESS_HEADER after deleting whatever the client sent under that name.
 *    The header counts only when the process-wide marker says that server is in front: under
 *    plain `next start` or `next dev` a client could send it.
 * 4. Otherwise nothing can be believed: every request shares one bucket, with one warning.
 */

export interface HeaderReader {
  get(name: string): string | null
}

/** Written by server.mjs (server/front.mjs); both sides must agree on the name. */
export const SOCKET_ADDRESS_HEADER = 'x-replay-socket-address'

/** Set on globalThis by server.mjs before Next loads: no request can set it. */
const FRONT_SERVER_MARKER = Symbol.for('session-replay-issues.front-server')

/** The one bucket every request falls into when no address can be trusted. */
export const SHARED_ADDRESS = 'unknown'

export interface ClientAddressSources {
  trustedProxyHops: number
  vercel: boolean
  /** True when our own server is in front and stamps SOCKET_ADDRESS_HEADER. */
  frontServer: boolean
}

/** Canonical text for an address (IPv4-mapped IPv6 as IPv4, compact lowercase IPv6), or undefined. */
export function normalizeAddress(raw: string | null | undefined): string | undefined {
  if (!raw) return undefined
  let text = raw.trim()
  if (text.length === 0 || text.length > 100) return undefined
  // Some proxies write `[v6]:port` or `v4:port`; the port is not part of the client's identity.
  if (text.startsWith('[')) {
    const end = text.indexOf(']')
    if (end < 0) return undefined
    text = text.slice(1, end)
  } else if (text.indexOf(':') > 0 && text.indexOf(':') === text.lastIndexOf(':') && text.includes('.')) {
    text = text.slice(0, text.indexOf(':'))
  }
  // Only dotted quads and IPv6: ipaddr.js would also read `1.2.3` or `0x7f.1` as IPv4.
  if (!ipaddr.IPv4.isValidFourPartDecimal(text) && !ipaddr.IPv6.isValid(text)) return undefined
  try {
    return ipaddr.process(text).toString().toLowerCase()
  } catch {
    return undefined
  }
}

function first(value: string | null): string | null {
  return value === null ? null : (value.split(',')[0] ?? null)
}

/** The decision itself, without configuration or logging: what the unit tests exercise. */
export function resolveClientAddress(
  headers: HeaderReader,
  sources: ClientAddressSources,
): string | undefined {
  if (sources.vercel)
    return normalizeAddress(first(headers.get('x-vercel-forwarded-for')) ?? first(headers.get('x-real-ip')))
  if (sources.trustedProxyHops > 0) {
    const chain = (headers.get('x-forwarded-for') ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry.length > 0)
    const chosen =
      chain.length >= sources.trustedProxyHops ? chain[chain.length - sources.trustedProxyHops] : chain[0]
    return normalizeAddress(chosen ?? (sources.frontServer ? headers.get(SOCKET_ADDRESS_HEADER) : null))
  }
  if (sources.frontServer) return normalizeAddress(headers.get(SOCKET_ADDRESS_HEADER))
  return undefined
}

let warned = false

function frontServerInPlace(): boolean {
  return (globalThis as Record<symbol, unknown>)[FRONT_SERVER_MARKER] === true
}

export function clientAddress(headers: HeaderReader): string {
  const config = getConfig().clientAddress
  const sources = { ...config, frontServer: frontServerInPlace() }
  const address = resolveClientAddress(headers, sources)
  if (address) return address
  if (!warned && !sources.vercel && sources.trustedProxyHops === 0 && !sources.frontServer) {
    warned = true
    logger.warn(
      'client addresses are unknown, so every address-keyed limit (sign-in, sign-up, client registration) is shared by all clients: start the service with `npm start` (server.mjs), or behind a reverse proxy set TRUSTED_PROXY_HOPS to the number of proxies that append to X-Forwarded-For',
    )
  }
  return SHARED_ADDRESS
}
