import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Db } from '@/db/client'
import { alertRules, integrations } from '@/db/schema'
import { encryptIntegrationSecret, secretHint } from '@/lib/integrations/secrets'

/** A local stand-in for Slack's incoming-webhook endpoint: records bodies, answers as told. */
export interface SlackReceiver {
  port: number
  host: string
  received: { path: string; body: unknown }[]
  behave(answer: (res: ServerResponse, index: number) => void): void
  close(): Promise<void>
}

export async function startSlackReceiver(): Promise<SlackReceiver> {
  let answer: (res: ServerResponse, index: number) => void = (res) => res.writeHead(200).end('ok')
  const received: SlackReceiver['received'] = []
  let index = 0
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) })
      answer(res, index++)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    host: `127.0.0.1:${port}`,
    received,
    behave: (next) => {
      answer = next
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A Slack integration row as the integrations CRUD writes it. */
export async function seedSlackIntegration(db: Db, organizationId: string, url: string) {
  const [row] = await db
    .insert(integrations)
    .values({
      organizationId,
      kind: 'slack',
      name: 'Alerts channel',
      settings: { kind: 'slack' },
      secretCiphertext: encryptIntegrationSecret(url),
      secretHint: secretHint(url),
    })
    .returning()
  return row!
}

export async function seedRule(db: Db, values: typeof alertRules.$inferInsert) {
  const [row] = await db.insert(alertRules).values(values).returning()
  return row!
}
