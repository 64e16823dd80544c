import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Redis as IORedis } from 'ioredis'

/**
 * A tiny Upstash-REST-compatible server in front of a real Redis, so that @upstash/redis and
 * @upstash/ratelimit run unchanged in tests. It speaks what that client sends: POST / with
 * one command array, POST /pipeline and /multi-exec with an array of them, a bearer token,
 * and `Upstash-Encoding: base64` answers. Upstash accepts script flags that Redis refuses,
 * so scripts are cleaned before Redis sees them while the client keeps using the SHA-1 of
 * the text it sent.
 */

export interface UpstashShim {
  url: string
  token: string
  /** Unique to this shim: put it in front of every key written; `close` deletes them. */
  keyPrefix: string
  close(): Promise<void>
}

type Arg = string | number | boolean
type Json = null | number | string | Json[]

interface HttpAnswer {
  status: number
  body: unknown
}

class BadRequest extends Error {}

// The shebang flags Redis 7 knows; Upstash adds its own (allow-key-locking) that Redis rejects.
const REDIS_SCRIPT_FLAGS = new Set([
  'no-writes',
  'allow-oom',
  'allow-stale',
  'no-cluster',
  'allow-cross-slot-keys',
])

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex')

function scriptForRedis(script: string): string {
  if (!script.startsWith('#!')) return script
  const end = script.indexOf('\n')
  const shebang = end === -1 ? script : script.slice(0, end)
  const [engine, ...options] = shebang.slice(2).trim().split(/\s+/)
  const kept = options.flatMap((option) => {
    if (!option.startsWith('flags=')) return [option]
    const flags = option
      .slice('flags='.length)
      .split(',')
      .filter((flag) => REDIS_SCRIPT_FLAGS.has(flag))
    return flags.length > 0 ? [`flags=${flags.join(',')}`] : []
  })
  return `#!${[engine, ...kept].join(' ')}${end === -1 ? '' : script.slice(end)}`
}

function isCommand(value: unknown): value is Arg[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((arg) => typeof arg === 'string' || typeof arg === 'number' || typeof arg === 'boolean')
  )
}

function encodeReply(value: unknown, base64: boolean): Json {
  if (value === null || value === undefined) return null
  if (typeof value === 'number') return value
  if (Array.isArray(value)) return value.map((item) => encodeReply(item, base64))
  if (Buffer.isBuffer(value) || typeof value === 'string') {
    const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value)
    const text = bytes.toString('utf8')
    // Upstash leaves the OK status unencoded; the client special-cases it.
    if (!base64 || text === 'OK') return text
    return bytes.toString('base64')
  }
  if (typeof value === 'object') {
    // ioredis turns HGETALL into an object; Upstash answers with the flat field/value array.
    return Object.entries(value).flatMap(([key, item]) => [
      encodeReply(key, base64),
      encodeReply(item, base64),
    ])
  }
  return String(value)
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw new BadRequest('ERR failed to parse the request body as JSON')
  }
}

export interface UpstashShimOptions {
  /** Defaults to REDIS_URL, then the machine's Redis at 127.0.0.1:6379. */
  redisUrl?: string
}

export async function startUpstashShim(options: UpstashShimOptions = {}): Promise<UpstashShim> {
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL?.trim() ?? 'redis://127.0.0.1:6379'
  // No reconnect loop and no offline queue: an unreachable Redis must fail the suite at once.
  const redis = new IORedis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  })
  // ioredis reports the socket's own error as an event and rejects with a vaguer one.
  let socketError: unknown
  redis.on('error', (error: unknown) => {
    socketError = error
  })
  try {
    await redis.connect()
    await redis.ping()
  } catch (error) {
    redis.disconnect()
    throw new Error(
      `The Upstash shim cannot reach Redis at ${redisUrl}: ${errorMessage(socketError ?? error)}`,
    )
  }

  const token = randomBytes(24).toString('base64url')
  const keyPrefix = `upstash-shim-test:${randomBytes(6).toString('hex')}`
  // Upstash's script SHA (of the text the client sent) → the SHA Redis knows the cleaned text by.
  const scripts = new Map<string, string>()

  /** The command Redis runs, and how to turn its reply into the one Upstash would give. */
  function translate(command: Arg[]): { name: string; args: string[]; reply?: (value: unknown) => unknown } {
    const [first, ...rest] = command.map(String)
    const name = first!.toLowerCase()
    const loaded = (script: string) => {
      const cleaned = scriptForRedis(script)
      scripts.set(sha1(script), sha1(cleaned))
      return cleaned
    }
    const known = (sha: string) => scripts.get(sha.toLowerCase()) ?? sha
    if ((name === 'eval' || name === 'eval_ro') && rest[0] !== undefined)
      return { name, args: [loaded(rest[0]), ...rest.slice(1)] }
    if ((name === 'evalsha' || name === 'evalsha_ro') && rest[0] !== undefined)
      return { name, args: [known(rest[0]), ...rest.slice(1)] }
    const sub = rest[0]?.toLowerCase()
    if (name === 'script' && sub === 'load' && rest[1] !== undefined) {
      const original = sha1(rest[1])
      return { name, args: ['load', loaded(rest[1])], reply: () => original }
    }
    if (name === 'script' && sub === 'exists') return { name, args: ['exists', ...rest.slice(1).map(known)] }
    return { name, args: rest }
  }

  async function runOne(command: Arg[]): Promise<unknown> {
    const { name, args, reply } = translate(command)
    const value = await redis.callBuffer(name, ...args)
    return reply ? reply(value) : value
  }

  async function runBatch(
    commands: Arg[][],
    atomic: boolean,
  ): Promise<{ result?: unknown; error?: string }[]> {
    const batch = atomic ? redis.multi() : redis.pipeline()
    const translated = commands.map(translate)
    for (const { name, args } of translated) batch.callBuffer(name, ...args)
    const results = await batch.exec()
    if (!results) throw new Error('EXECABORT Transaction discarded')
    return results.map(([error, value], i) => {
      if (error) return { error: error.message }
      const reply = translated[i]?.reply
      return { result: reply ? reply(value) : value }
    })
  }

  function authorized(req: IncomingMessage): boolean {
    const expected = Buffer.from(`Bearer ${token}`)
    const given = Buffer.from(req.headers.authorization ?? '')
    return given.length === expected.length && timingSafeEqual(given, expected)
  }

  async function answer(req: IncomingMessage): Promise<HttpAnswer> {
    if (!authorized(req)) return { status: 401, body: { error: 'Unauthorized' } }
    const path = new URL(req.url ?? '/', 'http://shim').pathname.replace(/\/+$/, '') || '/'
    if (req.method !== 'POST') return { status: 405, body: { error: 'ERR only POST is supported here' } }
    const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64'
    const body = await readJson(req)

    if (path === '/') {
      if (!isCommand(body)) throw new BadRequest('ERR the body must be one command array')
      try {
        return { status: 200, body: { result: encodeReply(await runOne(body), base64) } }
      } catch (error) {
        return { status: 400, body: { error: errorMessage(error) } }
      }
    }
    if (path === '/pipeline' || path === '/multi-exec') {
      if (!Array.isArray(body) || body.length === 0 || !body.every(isCommand))
        throw new BadRequest('ERR the body must be an array of command arrays')
      try {
        const results = await runBatch(body, path === '/multi-exec')
        return {
          status: 200,
          body: results.map((entry) =>
            entry.error === undefined
              ? { result: encodeReply(entry.result, base64) }
              : { error: entry.error },
          ),
        }
      } catch (error) {
        // A transaction that Redis refused as a whole (EXECABORT) fails the request.
        return { status: 400, body: { error: errorMessage(error) } }
      }
    }
    return { status: 404, body: { error: 'Not Found' } }
  }

  function send(res: ServerResponse, { status, body }: HttpAnswer): void {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }

  const server = createServer((req, res) => {
    answer(req).then(
      (result) => send(res, result),
      (error: unknown) =>
        send(res, { status: error instanceof BadRequest ? 400 : 500, body: { error: errorMessage(error) } }),
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    keyPrefix,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      try {
        let cursor = '0'
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}:*`, 'COUNT', 500)
          if (keys.length > 0) await redis.del(...keys)
          cursor = next
        } while (cursor !== '0')
      } finally {
        await redis.quit()
      }
    },
  }
}
