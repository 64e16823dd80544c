import { createHash } from 'node:crypto'
import type { SetCommandOptions, Redis as UpstashRedis } from '@upstash/redis'
import { openRedisConnection, type RedisConnection } from './redis-connection'
import { createSlidingWindowLimiter, RATE_LIMIT_TIMEOUT_MS, type RatelimitRedis } from './sliding-window'
import type { RateLimiter } from './types'

/**
 * @upstash/ratelimit's own `slidingWindow` over a plain Redis (REDIS_URL), through node-redis:
 * the same Lua script as the Upstash adapter, so the figures and headers are the same as
 * with Upstash and the in-process twin. The library talks to Redis through the few methods
 * of @upstash/redis's client it uses (`evalsha`, and `eval` when a script is not loaded yet;
 * `get`/`set` only for dynamic limits, which we do not use); `upstashCommands` gives those
 * methods over node-redis.
 *
 * When Redis cannot be reached, `limit` throws at once (redis-connection.ts), as the Upstash
 * adapter does once its client's retries are spent, and the request's surface answers 500;
 * when Redis answers slower than the timeout, the request is allowed with a warning
 * (sliding-window.ts), as with Upstash.
 */

export interface RedisRateLimiterOptions {
  /** redis:// or rediss:// (TLS); may carry a user and password. */
  url: string
  /** Start of every Redis key; tests give each run its own so they can clean up after it. */
  keyPrefix?: string
  /** How long a limit waits for Redis before allowing the request; 5 s as with Upstash. */
  timeoutMs?: number
  /** How long a request waits for the first connection (and each connect may take); 2 s. */
  connectTimeoutMs?: number
}

export interface RedisRateLimiter extends RateLimiter {
  readonly kind: 'redis'
  /** Closes the connection (tests; a server keeps it for its lifetime). */
  close(): Promise<void>
}

/** The client methods @upstash/ratelimit calls: its declared ones, and `eval` for NOSCRIPT. */
type UpstashCommands = RatelimitRedis & Pick<UpstashRedis, 'eval'>

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex')

/**
 * The library's scripts start with `#!lua flags=allow-key-locking`, a flag only Upstash knows:
 * Redis 7 refuses unknown flags and Redis 6 any shebang. Without the line, a script runs with
 * the defaults every Redis version has (it may write, and its keys are declared). The newline
 * stays so that line numbers in Redis's error messages still match the library's text.
 */
function scriptForRedis(script: string): string {
  return script.startsWith('#!') ? script.replace(/^#![^\n]*/, '') : script
}

/** Arguments go to Redis as strings: the library passes numbers (limits, times, window lengths). */
function serialize(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value) ?? ''
}

/**
 * The one cast: @upstash/redis types a reply as whatever its caller names (`TData`), since only
 * the caller knows what its script or key holds; this client, like that one, cannot check it.
 */
function asCallerType<TData>(reply: unknown): TData {
  return reply as TData
}

function setArguments(opts: SetCommandOptions | undefined): string[] {
  if (!opts) return []
  const args: string[] = []
  if (opts.nx) args.push('NX')
  if (opts.xx) args.push('XX')
  if (opts.get) args.push('GET')
  if (opts.ex !== undefined) args.push('EX', String(opts.ex))
  if (opts.px !== undefined) args.push('PX', String(opts.px))
  if (opts.exat !== undefined) args.push('EXAT', String(opts.exat))
  if (opts.pxat !== undefined) args.push('PXAT', String(opts.pxat))
  if (opts.keepTtl) args.push('KEEPTTL')
  return args
}

interface LoadedScript {
  /** The text Redis runs, and the SHA-1 Redis knows it by. */
  text: string
  sha: string
}

function upstashCommands(connection: RedisConnection): UpstashCommands {
  // Keyed by the SHA-1 of the library's own text, which is what it passes to `evalsha`.
  const scripts = new Map<string, LoadedScript>()

  function scriptFor(libraryText: string): LoadedScript {
    const librarySha = sha1(libraryText)
    let script = scripts.get(librarySha)
    if (!script) {
      const text = scriptForRedis(libraryText)
      script = { text, sha: sha1(text) }
      scripts.set(librarySha, script)
    }
    return script
  }

  // Replies are passed on as node-redis gives them (RESP2: integers as numbers, arrays as
  // arrays, a Lua false as null), which is what Upstash's REST answers hold for the sliding
  // window's scripts: they return integers only, so no further conversion is needed (the
  // adapters' agreement test compares the figures call by call).
  async function run(script: LoadedScript, keys: string[], args: unknown[]): Promise<unknown> {
    const rest = [String(keys.length), ...keys, ...args.map(serialize)]
    try {
      return await connection.send(['EVALSHA', script.sha, ...rest])
    } catch (error) {
      // A Redis that restarted or was flushed forgot the script: send its text once more.
      if (!`${error}`.includes('NOSCRIPT')) throw error
      return connection.send(['EVAL', script.text, ...rest])
    }
  }

  return {
    async evalsha<TArgs extends unknown[], TData = unknown>(sha: string, keys: string[], args: TArgs) {
      const script = scripts.get(sha)
      // Not seen yet: the library answers a NOSCRIPT error by calling `eval` with the text.
      if (!script) throw new Error(`NOSCRIPT no script ${sha} seen yet`)
      return asCallerType<TData>(await run(script, keys, args))
    },
    async eval<TArgs extends unknown[], TData = unknown>(text: string, keys: string[], args: TArgs) {
      return asCallerType<TData>(await run(scriptFor(text), keys, args))
    },
    async get<TData>(key: string) {
      return asCallerType<TData | null>(await connection.send(['GET', key]))
    },
    async set<TData>(key: string, value: TData, opts?: SetCommandOptions) {
      const reply = await connection.send(['SET', key, serialize(value), ...setArguments(opts)])
      return asCallerType<'OK' | TData | null>(reply)
    },
  }
}

/** Does no I/O: the connection opens on the first limit. */
export function createRedisRateLimiter({
  url,
  keyPrefix = 'ratelimit',
  timeoutMs = RATE_LIMIT_TIMEOUT_MS,
  connectTimeoutMs = 2_000,
}: RedisRateLimiterOptions): RedisRateLimiter {
  // Past the limiter's own timeout (which has answered by then), a command still unanswered is
  // dropped rather than kept waiting on a Redis that never replies.
  const connection = openRedisConnection({ url, connectTimeoutMs, commandTimeoutMs: timeoutMs + 1_000 })
  const { limit } = createSlidingWindowLimiter(upstashCommands(connection), {
    kind: 'redis',
    keyPrefix,
    timeoutMs,
  })
  return { kind: 'redis', limit, close: () => connection.close() }
}
