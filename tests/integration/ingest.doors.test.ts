import { randomBytes } from 'node:crypto'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { replayBatches, replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { INGEST_LIMITS } from '@/lib/ingest/limits'
import { createOrganization } from '@/lib/orgs/create-organization'
import replayRoute from '@/pages/api/sdk/replay'
import { makeBatch } from '../fixtures/replay-batch'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { preflight, sendBatch } from '../helpers/ingest'

/**
 * `/api/sdk/replay` is served by a Pages Router API route reading Node's request stream
 * (pages/api/sdk/replay.ts); the rest of the suite calls the same handler through the web
 * `Request` door in-process. Both doors must give the same answer to every request: status,
 * body and headers, errors included. Here the route file itself runs behind node:http.
 */

let database: TestDatabase
let server: Server
let baseUrl: string
let keyPairs: () => Promise<{ web: string; node: string }>

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  const { id: organizationId } = await createOrganization(database.db, { name: 'Doors' })
  // A key per door and case: the rate-limit headers then count the same on both sides.
  keyPairs = async () => ({
    web: (await createKey(database.db, { organizationId, type: 'ingest' })).key,
    node: (await createKey(database.db, { organizationId, type: 'ingest' })).key,
  })
  server = createServer((req, res) => void replayRoute(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  useDatabase(undefined)
  await database.close()
})

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
}

/** Headers that belong to the connection or the moment, not to the answer. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'])

function comparable(answer: Answer) {
  const headers = Object.fromEntries(
    Object.entries(answer.headers).filter(([name]) => !TRANSPORT.has(name) && name !== 'x-request-id'),
  )
  // The reset instant is the window's end, read a moment apart on the two sides.
  if (headers['x-ratelimit-reset']) headers['x-ratelimit-reset'] = 'present'
  let body: unknown = answer.body
  try {
    const parsed = JSON.parse(answer.body) as Record<string, unknown>
    if (typeof parsed.requestId === 'string') parsed.requestId = 'present'
    body = parsed
  } catch {
    // not JSON: compared as text
  }
  return { status: answer.status, headers, body }
}

async function fromWeb(response: Response): Promise<Answer> {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    headers[name] = value
  })
  return { status: response.status, headers, body: await response.text() }
}

/** One request to the Node door over a fresh connection; `chunks` stream the body without a length. */
function fromNode(options: {
  method?: string
  path?: string
  headers?: Record<string, string>
  body?: Uint8Array
  chunks?: Uint8Array[]
}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${baseUrl}${options.path ?? '/api/sdk/replay'}`,
      { method: options.method ?? 'POST', headers: options.headers, agent: false },
      (res) => {
        const parts: Buffer[] = []
        res.on('data', (chunk: Buffer) => parts.push(chunk))
        res.on('end', () => {
          const headers: Record<string, string> = {}
          for (const [name, value] of Object.entries(res.headers))
            if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(parts).toString() })
        })
      },
    )
    // The server may answer (413) and close before every chunk is written.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' ? undefined : reject(error)))
    if (options.chunks) {
      for (const chunk of options.chunks) req.write(chunk)
      req.end()
    } else req.end(options.body)
  })
}

const json = (value: unknown) => new Uint8Array(Buffer.from(JSON.stringify(value)))
const batch = (sequence = 0) =>
  makeBatch({ sessionId: `door-${randomBytes(4).toString('hex')}`, sequence, events: 8 })

describe('the Node door answers as the web door does', () => {
  it.each([
    [
      'a batch (key header)',
      200,
      () => ({ body: json(batch()), type: 'application/json', via: 'header' as const }),
    ],
    [
      'a batch (api_key query, text/plain)',
      200,
      () => ({ body: json(batch()), type: 'text/plain', via: 'query' as const }),
    ],
    ['a gzip batch', 200, () => ({ body: json(batch()), type: 'application/json', gzip: true })],
    ['no key', 401, () => ({ body: json(batch()), type: 'application/json', key: null })],
    [
      'an unknown key',
      401,
      () => ({ body: json(batch()), type: 'application/json', key: 'unknown' as const }),
    ],
    ['a form body', 415, () => ({ body: json(batch()), type: 'application/x-www-form-urlencoded' })],
    ['not JSON', 400, () => ({ body: new Uint8Array(Buffer.from('{"session":')), type: 'application/json' })],
    ['an invalid batch', 400, () => ({ body: json({ session: { id: '' } }), type: 'application/json' })],
    ['a brotli body', 415, () => ({ body: json(batch()), type: 'application/json', encoding: 'br' })],
  ])('%s: %i on both', async (_label, status, make) => {
    const keys = await keyPairs()
    const shape = make() as {
      body: Uint8Array
      type: string
      via?: 'header' | 'query'
      gzip?: boolean
      key?: null | 'unknown'
      encoding?: string
    }
    const headersFor = (key: string | null) => ({
      'content-type': shape.type,
      ...(shape.gzip ? { 'content-encoding': 'gzip' } : {}),
      ...(shape.encoding ? { 'content-encoding': shape.encoding } : {}),
      ...(key && shape.via !== 'query' ? { 'x-service-api-key': key } : {}),
    })
    // A made-up key per door, so each is rate-limited on its own count as a real one is.
    const unknown = () => `svc_ing_${randomBytes(20).toString('hex')}`
    const pick = (real: string) => (shape.key === undefined ? real : shape.key === null ? null : unknown())
    const webKey = pick(keys.web)
    const nodeKey = pick(keys.node)
    const web = await fromWeb(
      await sendBatch(shape.body, {
        key: webKey,
        via: shape.via,
        contentType: shape.type,
        headers: shape.encoding ? { 'content-encoding': shape.encoding } : undefined,
        gzip: shape.gzip,
      }),
    )
    const query = shape.via === 'query' && nodeKey ? `?api_key=${encodeURIComponent(nodeKey)}` : ''
    const node = await fromNode({
      path: `/api/sdk/replay${query}`,
      headers: headersFor(nodeKey),
      body: shape.gzip ? new Uint8Array(gzipSync(shape.body)) : shape.body,
    })
    expect(web.status).toBe(status)
    expect(comparable(node)).toEqual(comparable(web))
    expect(node.headers['x-request-id']).toMatch(/\S/)
  })

  it('refuses a declared body over the limit before reading it, and a streamed one as it passes the limit', async () => {
    const keys = await keyPairs()
    const over = INGEST_LIMITS.maxDecodedBytes + 1
    const web = await fromWeb(await sendBatch(new Uint8Array(over), { key: keys.web }))
    expect(web.status).toBe(413)
    const declared = await fromNode({
      headers: { 'content-type': 'application/json', 'x-service-api-key': keys.node },
      body: new Uint8Array(over),
    })
    expect(comparable(declared)).toEqual(comparable(web))
    // No Content-Length: the door counts what arrives and stops there.
    const chunk = new Uint8Array(1024 * 1024)
    const streamed = await fromNode({
      headers: { 'content-type': 'application/json', 'x-service-api-key': keys.node },
      chunks: Array.from({ length: Math.ceil(over / chunk.byteLength) + 1 }, () => chunk),
    })
    expect(streamed.status).toBe(413)
    expect(comparable(streamed).body).toEqual(comparable(web).body)
    // The unread rest must not be parsed as a next request on this connection.
    expect(streamed.headers.connection).toBe('close')
  })

  it('answers the preflight and refuses other methods as the App Router would', async () => {
    const web = await fromWeb(preflight())
    const node = await fromNode({ method: 'OPTIONS' })
    expect(node.status).toBe(204)
    expect(comparable(node)).toEqual(comparable(web))
    const get = await fromNode({ method: 'GET' })
    expect(get.status).toBe(405)
    expect(get.headers.allow).toBe('OPTIONS, POST')
  })

  it('stores what it accepts once, as the web door does', async () => {
    const keys = await keyPairs()
    const body = json(batch(3))
    const headers = { 'content-type': 'application/json', 'x-service-api-key': keys.node }
    const first = await fromNode({ headers, body })
    const again = await fromNode({ headers, body })
    expect([first.status, again.status]).toEqual([200, 200])
    const externalId = (JSON.parse(Buffer.from(body).toString()) as { session: { id: string } }).session.id
    const [stored] = await database.db
      .select({ n: count() })
      .from(replayBatches)
      .innerJoin(replaySessions, eq(replaySessions.id, replayBatches.sessionId))
      .where(eq(replaySessions.externalId, externalId))
    expect(stored?.n).toBe(1)
  })
})
