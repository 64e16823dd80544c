import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

/**
 * SSRF guard of every delivery attempt (spec "Delivery rules" 5): HTTPS only, no embedded
 * credentials, no service ports, and every address the host resolves to must be public.
 */
export class UnsafeUrlError extends Error {
  override name = 'UnsafeUrlError'
}

export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/** Resolves a hostname to all its addresses; injected in tests so no query leaves the machine. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>

export const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true })
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))
}

/**
 * The spec's list plus other well-known internal services (mail, DNS, SMB, RDP, databases,
 * brokers, orchestrators, caches): a webhook receiver never legitimately listens there.
 */
const BLOCKED_PORTS: ReadonlySet<number> = new Set([
  0, 21, 22, 23, 25, 53, 110, 111, 135, 139, 143, 445, 465, 587, 993, 995, 1433, 1521, 2049, 2375, 2376, 2379,
  2380, 3306, 3389, 4369, 5432, 5672, 5984, 6379, 6443, 8500, 9042, 9092, 9200, 9300, 10250, 11211, 15672,
  27017, 27018, 28017,
])

/**
 * Ranges that `WEBHOOK_ALLOW_PRIVATE_TARGETS` opens (development and tests). Multicast,
 * unspecified, broadcast and reserved stay closed even then: nothing legitimate listens there.
 */
const PRIVATE_RANGES = new Set(['private', 'loopback', 'linkLocal', 'uniqueLocal', 'carrierGradeNat'])

export interface AddressPolicy {
  /** Opens the private ranges above (WEBHOOK_ALLOW_PRIVATE_TARGETS). */
  allowPrivate?: boolean
  /** Exact CIDRs allowed although non-public (tests: 127.0.0.1/32 plays "public"). */
  allowCidrs?: readonly string[]
}

/** `::/96`; `::` and `::1` in it never get this far: ipaddr.js names them unspecified and loopback. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96')

/**
 * IPv6 addresses that carry an IPv4 address, where one could reach an IPv4 host the IPv4
 * check would refuse. ipaddr.js names most of them as special ranges, which are refused like
 * any non-unicast range: IPv4-translated `::ffff:0:0:0/96` (rfc6145), NAT64 `64:ff9b::/96`
 * and `64:ff9b:1::/48` (rfc6052), 6to4 `2002::/16` and Teredo `2001::/32`: tunnels and
 * translators a receiver has no reason to sit behind. IPv4-mapped `::ffff:0:0/96` is unwrapped
 * by process() and its IPv4 address checked. What ipaddr.js calls plain unicast is handled
 * here: IPv4-compatible `::/96` (deprecated by RFC 4291) is refused outright; an ISATAP
 * interface identifier (`…:0:5efe:a.b.c.d`, u/g bits either way) in a global prefix is checked
 * by its embedded IPv4 address, because a random interface id rarely takes that form and the
 * prefix alone routes elsewhere, but a site's ISATAP router would deliver to that IPv4 host.
 */
function embeddedIpv4Refusal(parsed: ipaddr.IPv6, policy: AddressPolicy): string | null {
  if (parsed.match(IPV4_COMPATIBLE)) return `${parsed.toString()} is an ipv4Compatible address`
  const [, , , , idHigh = 1, idLow] = parsed.parts
  if ((idHigh & 0xfcff) === 0 && idLow === 0x5efe) {
    const embedded = ipaddr.fromByteArray(parsed.toByteArray().slice(12)).toString()
    const refusal = addressRefusal(embedded, policy)
    if (refusal) return `${parsed.toString()} is an isatap address (${refusal})`
  }
  return null
}

/** Why an address is refused, or null when it may be reached. */
export function addressRefusal(address: string, policy: AddressPolicy = {}): string | null {
  if (!ipaddr.isValid(address)) return `not an IP address: ${address}`
  // process() turns IPv4-mapped IPv6 (::ffff:127.0.0.1) into the IPv4 address it carries.
  const parsed = ipaddr.process(address)
  const range = parsed.range()
  if (range === 'unicast') return parsed instanceof ipaddr.IPv6 ? embeddedIpv4Refusal(parsed, policy) : null
  for (const cidr of policy.allowCidrs ?? []) {
    const [net, bits] = ipaddr.parseCIDR(cidr)
    if (net.kind() === parsed.kind() && parsed.match([net, bits])) return null
  }
  if (policy.allowPrivate && PRIVATE_RANGES.has(range)) return null
  return `${address} is a ${range} address`
}

export interface VettedTarget {
  url: URL
  hostname: string
  port: number
  /** The only addresses the connection may use: checked here, pinned in the connector. */
  addresses: ResolvedAddress[]
}

/** Checks the URL's shape; throws UnsafeUrlError. Also used when an endpoint is created. */
export function checkUrlShape(raw: string): { url: URL; hostname: string; port: number } {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new UnsafeUrlError('not a valid URL')
  }
  // HTTPS even when private targets are allowed: the spec has no exception, and the tests'
  // receivers speak TLS with their own CA.
  if (url.protocol !== 'https:') throw new UnsafeUrlError('only https URLs are allowed')
  if (url.username || url.password) throw new UnsafeUrlError('URLs with credentials are not allowed')
  const port = url.port === '' ? 443 : Number(url.port)
  if (BLOCKED_PORTS.has(port)) throw new UnsafeUrlError(`port ${port} is not allowed`)
  // The WHATWG parser already turned 0x7f.1, 2130706433 and friends into dotted quads.
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1')
  if (hostname === '') throw new UnsafeUrlError('missing host')
  // An IPv6 literal that no policy could ever open (IPv4-compatible, NAT64, 6to4, Teredo…) is
  // refused here already, when the endpoint is created; a private one may be allowed in
  // development (WEBHOOK_ALLOW_PRIVATE_TARGETS), so that waits for delivery.
  if (isIP(hostname) === 6) {
    const refusal = addressRefusal(hostname, { allowPrivate: true })
    if (refusal) throw new UnsafeUrlError(refusal)
  }
  return { url, hostname, port }
}

/** Shape checks, then a fresh resolution whose every answer must pass the address policy. */
export async function vetTarget(
  raw: string,
  resolver: Resolver,
  policy: AddressPolicy,
): Promise<VettedTarget> {
  const { url, hostname, port } = checkUrlShape(raw)
  let addresses: ResolvedAddress[]
  if (isIP(hostname)) addresses = [{ address: hostname, family: isIP(hostname) === 6 ? 6 : 4 }]
  else addresses = await resolver(hostname)
  if (addresses.length === 0)
    throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' })
  // One bad answer refuses the host: a rebinding attacker mixes public and private answers.
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, policy)
    if (refusal) throw new UnsafeUrlError(refusal)
  }
  return { url, hostname, port, addresses }
}
