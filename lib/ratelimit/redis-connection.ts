import { once } from 'node:events'
import { createClient } from 'redis'
import { logger } from '@/lib/log'

/**
 * One node-redis connection for the plain-Redis limiter, opened on first use and bounded so
 * that no request waits on it for long:
 *
 * - commands are never queued while disconnected (`disableOfflineQueue`): once a connection
 *   attempt has failed, every command fails at once until Redis is back;
 * - a request that finds the first connection under way waits for it at most
 *   `connectTimeoutMs`, which also bounds each TCP/TLS connect;
 * - the client reconnects in the background with exponential backoff (50 ms doubling, at most
 *   2 s, plus jitter), so a Redis that comes back is used again without a restart;
 * - a command Redis never answers fails after `commandTimeoutMs`, and its connection is
 *   replaced by a fresh one.
 *
 * Nothing logged or thrown names the URL: it may carry a password. Redis is named by
 * `scheme://host:port`.
 */

export interface RedisConnectionOptions {
  /** redis:// or rediss:// (TLS), as REDIS_URL gives it. */
  url: string
  connectTimeoutMs: number
  commandTimeoutMs: number
}

export interface RedisConnection {
  /** One command and its raw reply (RESP2 shapes: strings, integers, arrays, null). */
  send(args: string[]): Promise<unknown>
  /** Drops the connection, if one was opened, and stops reconnecting. */
  close(): Promise<void>
}

/** Redis could not be reached; the message is secret-free. */
export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError'
}

const MAX_RECONNECT_DELAY_MS = 2_000

function reconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS) + Math.floor(Math.random() * 100)
}

/** `scheme://host:port` of a Redis URL, without its credentials or database. */
export function redisTarget(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}`
  } catch {
    return 'redis (unparsable URL)'
  }
}

function reasonOf(error: unknown): string {
  // node-redis's messages name the host and port at most (`connect ECONNREFUSED 127.0.0.1:1`).
  return error instanceof Error ? error.message : String(error)
}

function newClient({ url, connectTimeoutMs }: RedisConnectionOptions) {
  return createClient({
    url,
    // RESP2 answers in the shapes Upstash's REST service gives (flat arrays, null for a Lua
    // false), and needs no HELLO, so servers without RESP3 work too.
    RESP: 2,
    disableOfflineQueue: true,
    socket: { connectTimeout: connectTimeoutMs, reconnectStrategy: reconnectDelay },
  })
}
type Client = ReturnType<typeof newClient>

export function openRedisConnection(options: RedisConnectionOptions): RedisConnection {
  const target = redisTarget(options.url)
  let client: Client | undefined
  /** Why the last connection attempt failed; cleared once connected. */
  let down: string | undefined

  const unavailable = (reason: string) =>
    new RedisUnavailableError(`Redis at ${target} is unreachable: ${reason}`)

  function markDown(reason: string): void {
    if (down === undefined)
      logger.warn(
        { redis: target, reason },
        'Redis rate limiter cannot reach Redis; rate-limited requests fail until it is back (reconnecting)',
      )
    down = reason
  }

  function open(): Client {
    let created: Client
    try {
      created = newClient(options)
    } catch {
      // node-redis's own message for a malformed URL may quote it.
      throw new RedisUnavailableError('REDIS_URL is not a usable Redis URL')
    }
    created.on('error', (error: unknown) => markDown(reasonOf(error)))
    created.on('ready', () => {
      if (down !== undefined) logger.info({ redis: target }, 'Redis rate limiter connected to Redis again')
      down = undefined
    })
    // Resolves once connected and rejects only when closed: failures arrive as 'error' events.
    created.connect().catch(() => undefined)
    // A limiter's connection alone must not keep a process (a CLI, a test run) alive.
    created.unref()
    return created
  }

  /**
   * Drops a connection whose command went unanswered: the next command opens a fresh one
   * (waiting for it at most connectTimeoutMs), so a Redis that recovers is used again at once.
   */
  function recycle(stale: Client): void {
    if (client !== stale) return
    logger.warn(
      { redis: target, timeoutMs: options.commandTimeoutMs },
      'Redis rate limiter got no answer from Redis; reconnecting',
    )
    client = undefined
    stale.destroy()
  }

  /** Shared by the requests that arrive while the first connection is under way. */
  let connecting: Promise<void> | undefined

  async function firstConnection(opening: Client): Promise<void> {
    try {
      // An 'error' rejects at once; the signal bounds a connection that neither fails nor opens.
      await once(opening, 'ready', { signal: AbortSignal.timeout(options.connectTimeoutMs) })
    } catch (error) {
      if (!(error instanceof Error && error.name === 'AbortError')) throw unavailable(reasonOf(error))
      // Connected but not answering its handshake: later requests fail at once until 'ready'.
      markDown(`no connection within ${options.connectTimeoutMs} ms`)
      throw unavailable(`no connection within ${options.connectTimeoutMs} ms`)
    }
  }

  async function ready(): Promise<Client> {
    client ??= open()
    if (client.isReady) return client
    if (down !== undefined) throw unavailable(down)
    const opening = client
    connecting ??= firstConnection(opening).finally(() => {
      connecting = undefined
    })
    await connecting
    return opening
  }

  return {
    async send(args) {
      const connected = await ready()
      const reply = connected.sendCommand(args, { timeout: options.commandTimeoutMs })
      let timer: NodeJS.Timeout | undefined
      // node-redis's own timeout only covers a command not yet written: one Redis has received
      // but never answers (a frozen server, a black-holed network) would wait for ever, and every
      // later command queue up behind it on the same connection.
      const unanswered = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(unavailable(`no answer within ${options.commandTimeoutMs} ms`))
          recycle(connected)
        }, options.commandTimeoutMs)
      })
      // Destroying the connection rejects the command too, after the race has been decided.
      reply.catch(() => undefined)
      try {
        return await Promise.race([reply, unanswered])
      } finally {
        clearTimeout(timer)
      }
    },
    async close() {
      const opened = client
      client = undefined
      if (opened?.isOpen) opened.destroy()
    },
  }
}
