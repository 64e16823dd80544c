import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Resolver } from '@/lib/webhooks/url-guard'

/**
 * Offline webhook receivers: a CA made at test setup with openssl (node:crypto cannot issue
 * certificates), HTTPS servers on loopback, and a resolver that can only answer 127.0.0.0/8.
 */
export interface TestPki {
  caCert: string
  /** A certificate (and key) for these DNS names, signed by the test CA. */
  issue(names: string[]): { cert: string; key: string }
  dispose(): void
}

export function createTestPki(): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'webhook-pki-'))
  const file = (name: string) => path.join(dir, name)
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' })
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.crt'),
    '-days',
    '2',
    '-subj',
    '/CN=Webhook Test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  )
  let serial = 0
  return {
    caCert: readFileSync(file('ca.crt'), 'utf8'),
    issue(names) {
      const id = `leaf${++serial}`
      openssl(
        'req',
        ...ec,
        '-keyout',
        file(`${id}.key`),
        '-out',
        file(`${id}.csr`),
        '-subj',
        `/CN=${names[0]}`,
      )
      writeFileSync(file(`${id}.ext`), `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}\n`)
      openssl(
        'x509',
        '-req',
        '-in',
        file(`${id}.csr`),
        '-CA',
        file('ca.crt'),
        '-CAkey',
        file('ca.key'),
        '-CAcreateserial',
        '-out',
        file(`${id}.crt`),
        '-days',
        '2',
        '-extfile',
        file(`${id}.ext`),
      )
      return { cert: readFileSync(file(`${id}.crt`), 'utf8'), key: readFileSync(file(`${id}.key`), 'utf8') }
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  }
}

export interface ReceivedRequest {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
  at: number
}

/** What the receiver does with the nth request (0-based); 200 by default. */
export type Behaviour = (res: ServerResponse, index: number) => void

export interface TestReceiver {
  port: number
  received: ReceivedRequest[]
  /** TCP connections accepted so far (keep-alive reuse shows as fewer than requests). */
  connections(): number
  behave(fn: Behaviour): void
  close(): Promise<void>
}

export async function startReceiver(
  tls: { cert: string; key: string },
  behaviour?: Behaviour,
  host = '127.0.0.1',
  port = 0,
): Promise<TestReceiver> {
  let behave: Behaviour = behaviour ?? ((res) => res.writeHead(200).end('ok'))
  const received: ReceivedRequest[] = []
  const server: Server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const index = received.length
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      })
      behave(res, index)
    })
  })
  let connections = 0
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(port, host, resolve))
  return {
    port: (server.address() as AddressInfo).port,
    received,
    connections: () => connections,
    behave: (fn) => {
      behave = fn
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * A resolver from a fixed table. It refuses to answer anything outside 127.0.0.0/8, so a
 * guard bug can never send test traffic off the machine.
 */
export function loopbackResolver(table: Record<string, string[]>): Resolver {
  return async (hostname) => {
    const answers = table[hostname]
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    for (const a of answers)
      if (!a.startsWith('127.')) throw new Error(`test resolver refuses non-loopback answer ${a}`)
    return answers.map((address) => ({ address, family: 4 as const }))
  }
}

/** A resolver that returns any answer it was given, but whose answers are never connected to. */
export function fakeResolver(table: Record<string, string[]>): Resolver {
  return async (hostname) =>
    (table[hostname] ?? []).map((address) => ({
      address,
      family: address.includes(':') ? (6 as const) : (4 as const),
    }))
}
