// The HTTPS receiver of `npm run bench:webhooks`, in a process of its own so that its CPU is
// not counted as the delivering side's. Started with IPC: it is sent its certificate and the
// secret of every endpoint path, answers 204 to every POST after checking the signature, and
// on request reports what it saw, counted by (path, Service-Webhook-Id).
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { verifyWebhookSignature } from '@/lib/webhooks/verify'

type Message =
  | { type: 'listen'; cert: string; key: string }
  /** Endpoint path → its `whsec_` secret (the endpoints are made once the port is known). */
  | { type: 'secrets'; secrets: Record<string, string> }
  | { type: 'report' }

export interface ReceiverReport {
  received: number
  distinct: number
  duplicates: number
  badSignatures: number
  tcpConnections: number
  cpuMs: number
  rssBytes: number
}

// BENCH_RECEIVER_DELAY_MS: answer this much later, like a receiver across the internet would.
const DELAY_MS = Number(process.env.BENCH_RECEIVER_DELAY_MS ?? 0)
const seen = new Map<string, number>()
let received = 0
let badSignatures = 0
let tcpConnections = 0
let secrets: Record<string, string> = {}

process.on('message', (message: Message) => {
  if (message.type === 'secrets') {
    secrets = message.secrets
    process.send?.({ type: 'ready' })
    return
  }
  if (message.type === 'report') {
    const cpu = process.cpuUsage()
    const report: ReceiverReport = {
      received,
      distinct: seen.size,
      duplicates: [...seen.values()].filter((n) => n > 1).length,
      badSignatures,
      tcpConnections,
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      rssBytes: process.memoryUsage().rss,
    }
    process.send?.({ type: 'report', report })
    return
  }
  const server = createServer({ cert: message.cert, key: message.key }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received++
      const path = req.url ?? ''
      const id = String(req.headers['service-webhook-id'])
      const secret = secrets[path]
      try {
        if (!secret) throw new Error(`no endpoint at ${path}`)
        verifyWebhookSignature(Buffer.concat(chunks), req.headers['service-signature'] as string, secret)
      } catch {
        badSignatures++
      }
      const key = `${path} ${id}`
      seen.set(key, (seen.get(key) ?? 0) + 1)
      if (DELAY_MS > 0) setTimeout(() => res.writeHead(204).end(), DELAY_MS)
      else res.writeHead(204).end()
    })
  })
  server.on('connection', () => tcpConnections++)
  server.listen(0, '127.0.0.1', () =>
    process.send?.({ type: 'listening', port: (server.address() as AddressInfo).port }),
  )
})
process.on('disconnect', () => process.exit(0))
