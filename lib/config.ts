import { randomBytes } from 'node:crypto'
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { Cron } from 'croner'
import { z } from 'zod'
import type { Plan } from '@/db/schema'

/**
 * Every environment variable of the operating contract (docs/design/operations.md §2), parsed
 * once. Empty strings count as unset so that `FOO=` in an .env file means "use the default".
 */

/** The plans an organization can be on (db/schema PLANS), kept here so config loads no schema. */
const PLAN_NAMES = ['free', 'paid'] as const satisfies readonly Plan[]

const DEFAULT_HOSTED_REDIRECT_ORIGINS = 'https://claude.ai,https://claude.com,https://chatgpt.com'

const wholeNumber = () => z.coerce.number({ error: 'must be a number' }).int('must be a whole number')
const positiveInt = wholeNumber().positive('must be greater than 0')
const flag = z.enum(['1', '0', 'true', 'false']).transform((v) => v === '1' || v === 'true')
const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .transform((u) => u.replace(/(?<!\/)\/+$/, ''))

const commaList = (item: z.ZodType<string, string>) =>
  z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item))

const httpsOrigin = z.string().refine((value) => {
  try {
    const url = new URL(value)
    return url.protocol === 'https:' && url.origin === value.replace(/\/$/, '')
  } catch {
    return false
  }
}, 'must be a comma-separated list of https origins (scheme and host only)')

const httpOrigin = z.string().refine((value) => {
  try {
    const url = new URL(value)
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value.replace(/\/$/, '')
  } catch {
    return false
  }
}, 'must be a comma-separated list of http(s) origins (scheme, host and port only)')

const absoluteUriWithoutFragment = z.string().refine((value) => {
  try {
    const url = new URL(value)
    return !url.hash && !value.includes('#')
  } catch {
    return false
  }
}, 'must be a comma-separated list of absolute URIs without fragments')

/** Hourly at :17 (off the hour, when most schedules fire): a backlog over one run's budget is worked off within hours. */
export const DEFAULT_RETENTION_CRON = '17 * * * *'

/**
 * Five fields only: Inngest schedules have minute resolution, so a seconds field would mean
 * one thing in-process and be refused there. Croner, which runs the schedule in-process, judges the rest.
 */
function isMinuteCron(expression: string): boolean {
  if (expression.trim().split(/\s+/).length !== 5) return false
  try {
    new Cron(expression.trim(), { paused: true })
    return true
  } catch {
    return false
  }
}

/** Parsed here, so that a URL the Redis client could not use stops start-up, not every request. */
function isRedisUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== ''
  } catch {
    return false
  }
}

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: wholeNumber()
    .min(1, 'must be a port between 1 and 65535')
    .max(65535, 'must be a port between 1 and 65535')
    .default(3000),
  BASE_URL: httpUrl.optional(),
  INGEST_URL: httpUrl.optional(),
  DATA_DIR: z.string().default('.data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/.+/, 'must be a postgres:// or postgresql:// connection URL')
    .optional(),
  AUTH_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters (for example `openssl rand -base64 32`)')
    .optional(),
  BLOB_READ_WRITE_TOKEN: z.string().optional(),
  S3_BUCKET: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
      'must be an S3 bucket name (3 to 63 of a-z, 0-9, dot and hyphen)',
    )
    .optional(),
  S3_REGION: z.string().optional(),
  S3_ENDPOINT: httpUrl.optional(),
  S3_FORCE_PATH_STYLE: flag.default(false),
  REDIS_URL: z.string().refine(isRedisUrl, 'must be a redis:// or rediss:// URL with a host').optional(),
  UPSTASH_REDIS_REST_URL: httpUrl.optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().optional(),
  INNGEST_EVENT_KEY: z.string().optional(),
  INNGEST_SIGNING_KEY: z.string().optional(),
  INNGEST_DEV: z.string().optional(),
  INNGEST_BASE_URL: httpUrl.optional(),
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: positiveInt.default(3600),
  OAUTH_REFRESH_TOKEN_TTL_DAYS: positiveInt.default(30),
  OAUTH_AUTHORIZATION_CODE_TTL_SECONDS: positiveInt.default(60),
  OAUTH_HOSTED_REDIRECT_ORIGINS: commaList(httpsOrigin).default(DEFAULT_HOSTED_REDIRECT_ORIGINS.split(',')),
  OAUTH_EXTRA_REDIRECT_URIS: commaList(absoluteUriWithoutFragment).default([]),
  MCP_ALLOWED_ORIGINS: commaList(httpOrigin).default([]),
  OAUTH_REFRESH_REUSE_GRACE_SECONDS: wholeNumber().min(0, 'must be 0 or more').default(0),
  INGEST_AUTOMATED_SESSIONS: z.enum(['store', 'drop'], { error: 'must be store or drop' }).default('store'),
  /**
   * Key-encryption keys of session data keys (docs/privacy.md#encryption): `id:base64` pairs,
   * comma-separated, the first one active; each key 32 bytes. Unset: one derived from AUTH_SECRET.
   */
  DATA_ENCRYPTION_KEYS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return []
      const keys: { id: string; key: Buffer }[] = []
      for (const entry of value.split(',')) {
        const [id, encoded, extra] = entry.trim().split(':')
        const key = encoded ? Buffer.from(encoded, 'base64') : Buffer.alloc(0)
        if (!id || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || extra !== undefined || key.length !== 32) {
          ctx.addIssue({
            code: 'custom',
            message:
              'must be id:base64 pairs, comma-separated, each key 32 bytes (`openssl rand -base64 32`)',
          })
          return z.NEVER
        }
        if (keys.some((k) => k.id === id)) {
          ctx.addIssue({ code: 'custom', message: `names key ${id} twice` })
          return z.NEVER
        }
        keys.push({ id, key })
      }
      return keys
    }),
  SESSION_IDLE_SECONDS: positiveInt.default(60),
  JOBS_LEASE_SECONDS: wholeNumber().min(5, 'must be at least 5 (seconds)').default(60),
  FINALIZER_INTERVAL_SECONDS: positiveInt.default(15),
  ANALYSIS_TIMEOUT_SECONDS: positiveInt.default(60),
  ANALYSIS_MEMORY_MB: wholeNumber().min(32, 'must be at least 32 (megabytes)').default(256),
  INSIGHTS_INTERVAL_HOURS: positiveInt.default(24),
  INSIGHTS_INTERVAL_MINUTES: positiveInt
    .refine(
      (minutes) => minutes < 60 && 60 % minutes === 0,
      'must divide an hour (1, 2, 3, 4, 5, 6, 10, 12, 15, 20 or 30); use INSIGHTS_INTERVAL_HOURS for longer',
    )
    .optional(),
  RETENTION_CRON: z
    .string()
    .refine(
      isMinuteCron,
      'must be a five-field cron expression (minute hour day month weekday), e.g. 17 3 * * *',
    )
    .default(DEFAULT_RETENTION_CRON),
  SOURCEMAP_RETENTION_DAYS: positiveInt.default(90),
  WEBHOOK_RETRY_DELAYS_SECONDS: commaList(
    z.string().regex(/^\d+(\.\d+)?$/, 'must be three non-negative numbers of seconds, e.g. 60,300,1500'),
  )
    .refine((list) => list.length === 3, 'must list exactly three delays (before retries 1, 2 and 3)')
    .transform((list) => list.map(Number))
    .default([60, 300, 1500]),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: flag.default(false),
  SLACK_WEBHOOK_HOSTS: commaList(
    z
      .string()
      .regex(/^[a-z0-9.-]+(:\d{1,5})?$/, 'must be a comma-separated list of host names (host or host:port)'),
  ).default(['hooks.slack.com']),
  LINEAR_API_URL: httpUrl.default('https://api.linear.app/graphql'),
  GITHUB_API_URL: httpUrl.default('https://api.github.com'),
  AI_PROVIDER: z.enum(['openai', 'anthropic', 'google', 'openai-compatible']).optional(),
  AI_MODEL: z.string().optional(),
  AI_API_KEY: z.string().optional(),
  AI_BASE_URL: httpUrl.optional(),
  AI_TIMEOUT_SECONDS: wholeNumber().min(1, 'must be at least 1').max(300, 'must be at most 300').default(20),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUSTED_PROXY_HOPS: wholeNumber().min(0, 'must be 0 or more').max(10, 'must be at most 10').default(0),
  // Set by Vercel on its own platform, where it rewrites the client-address headers.
  VERCEL: flag.default(false),
  /** The plan of organizations created without one, after the installation's first (docs/self-hosting.md). */
  DEFAULT_PLAN: z.enum(PLAN_NAMES, { error: `must be one of: ${PLAN_NAMES.join(', ')}` }).default('free'),
})

type Env = z.infer<typeof EnvSchema>

export type DatabaseChoice = { kind: 'postgres'; url: string } | { kind: 'pglite'; dataDir: string }
export type BlobChoice =
  | { kind: 'vercel'; token: string }
  | {
      kind: 's3'
      bucket: string
      /** Unset: the SDK's own chain (AWS_REGION, the shared config file, ...). */
      region?: string
      /** An S3-compatible server (MinIO, R2, GCS's S3 API, ...); unset for AWS itself. */
      endpoint?: string
      forcePathStyle: boolean
    }
  | { kind: 'local'; root: string }
export type RateLimitChoice =
  | { kind: 'upstash'; url: string; token: string }
  | { kind: 'redis'; url: string }
  | { kind: 'memory' }
export type JobsChoice =
  | { kind: 'inngest'; eventKey?: string; signingKey?: string; dev: boolean; baseUrl?: string }
  | { kind: 'in-process' }
export type AiChoice =
  | { kind: 'none' }
  | {
      kind: 'model'
      provider: NonNullable<Env['AI_PROVIDER']>
      model: string
      apiKey?: string
      baseUrl?: string
    }

export interface Config {
  nodeEnv: Env['NODE_ENV']
  port: number
  baseUrl: string
  ingestUrl: string
  dataDir: string
  authSecret: string
  /** True when AUTH_SECRET came from the development file rather than the environment. */
  authSecretGenerated: boolean
  database: DatabaseChoice
  blob: BlobChoice
  rateLimit: RateLimitChoice
  jobs: JobsChoice
  ai: AiChoice
  /** A model call that has not answered by then is abandoned; the deterministic result stands. */
  aiTimeoutMs: number
  oauth: {
    accessTokenTtlSeconds: number
    refreshTokenTtlDays: number
    authorizationCodeTtlSeconds: number
    hostedRedirectOrigins: string[]
    extraRedirectUris: string[]
    refreshReuseGraceSeconds: number
  }
  sessions: { idleSeconds: number; finalizerIntervalSeconds: number }
  /**
   * Automated traffic (headless browsers, crawlers, our reproduction runs): stored and viewable
   * but never counted, or not stored at all (docs/hostile-input.md#automated-traffic).
   */
  ingest: { automatedSessions: 'store' | 'drop' }
  /** Key-encryption keys from DATA_ENCRYPTION_KEYS, the active one first; empty: derive from AUTH_SECRET. */
  dataEncryptionKeys: { id: string; key: Buffer }[]
  /**
   * In-process engine: how long a claimed run stays with an instance that stopped renewing it
   * (killed, frozen) before another instance takes it over.
   */
  jobsLeaseSeconds: number
  /** Browser origins besides BASE_URL's that may call /api/mcp (an Origin header outside them is refused). */
  mcpAllowedOrigins: string[]
  /** One session's analysis budget in its worker thread. */
  analysis: { timeoutSeconds: number; memoryMb: number }
  insights: { intervalHours: number }
  /** When the retention sweep runs (docs/operations.md). */
  retention: { cron: string }
  /** Uploaded source maps are deleted this many days after their upload (docs/source-maps.md). */
  sourcemaps: { retentionDays: number }
  webhooks: { retryDelaysSeconds: number[]; allowPrivateTargets: boolean }
  /**
   * Where the Slack, Linear and GitHub integrations may send: Slack incoming-webhook URLs only on
   * these hosts; the Linear GraphQL and GitHub REST APIs at these addresses (GitHub Enterprise
   * Server has its own; tests point all three at local servers).
   */
  integrations: { slackWebhookHosts: string[]; linearApiUrl: string; githubApiUrl: string }
  logLevel: Env['LOG_LEVEL']
  /** Where client addresses come from (lib/ratelimit/client-address.ts). */
  clientAddress: { trustedProxyHops: number; vercel: boolean }
  /** Plans of new organizations: DEFAULT_PLAN, for those after the first (the admin CLI hands it to lib/orgs/plans.ts). */
  orgs: { defaultPlan: Plan }
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

function withoutEmptyStrings(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value.trim() !== '') out[key] = value
  }
  return out
}

function fail(variable: string, message: string): never {
  throw new ConfigError(`Invalid environment variable ${variable}: ${message}`)
}

/**
 * What `npm start` (production) cannot run without, and what to set each to. Development makes
 * up both (localhost, a secret in DATA_DIR); production must not guess either.
 */
export const REQUIRED_IN_PRODUCTION = {
  BASE_URL: 'the public http(s) address of the service, e.g. https://replay.example.com',
  AUTH_SECRET: 'at least 32 random characters, e.g. the output of `openssl rand -base64 32`',
} as const

/** Names every missing variable at once, so an operator fixes them in one go rather than one per start. */
function failOnMissing(env: Pick<Env, keyof typeof REQUIRED_IN_PRODUCTION>): void {
  const missing = (Object.keys(REQUIRED_IN_PRODUCTION) as (keyof typeof REQUIRED_IN_PRODUCTION)[]).filter(
    (name) => !env[name],
  )
  if (missing.length === 0) return
  const each = missing.map((name) => `${name} (${REQUIRED_IN_PRODUCTION[name]})`).join('; ')
  throw new ConfigError(
    `Missing environment variable${missing.length > 1 ? 's' : ''} required in production: ${each}. Set ${
      missing.length > 1 ? 'them' : 'it'
    } in the environment and start again (docs/configuration.md).`,
  )
}

/** Development-only secret, generated once and kept beside the embedded database. */
function developmentAuthSecret(dataDir: string): string {
  const file = path.join(dataDir, 'auth-secret')
  const read = (): string | undefined => {
    try {
      const value = readFileSync(file, 'utf8').trim()
      return value.length >= 32 ? value : undefined
    } catch {
      return undefined
    }
  }
  const existing = read()
  if (existing) return existing
  mkdirSync(dataDir, { recursive: true })
  // Written whole to a private temp file, then linked into place: a reader never sees a
  // half-written secret, and of two processes starting at once the first link wins.
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`
  writeFileSync(temp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 })
  try {
    linkSync(temp, file)
  } catch {
    // another process linked first, or a short file is in the way (checked below)
  } finally {
    rmSync(temp, { force: true })
  }
  const secret = read()
  if (!secret)
    fail('AUTH_SECRET', `is not set and ${file} does not hold a usable secret; delete it or set AUTH_SECRET`)
  return secret
}

export function parseConfig(rawEnv: Record<string, string | undefined>): Config {
  const parsed = EnvSchema.safeParse(withoutEmptyStrings(rawEnv))
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    fail(String(issue?.path[0] ?? 'environment'), issue?.message ?? 'invalid value')
  }
  const env = parsed.data
  if (env.NODE_ENV === 'production') failOnMissing(env)
  const dataDir = path.resolve(env.DATA_DIR)
  const baseUrl = env.BASE_URL ?? `http://localhost:${env.PORT}`

  if (env.UPSTASH_REDIS_REST_URL && !env.UPSTASH_REDIS_REST_TOKEN)
    fail('UPSTASH_REDIS_REST_TOKEN', 'is required when UPSTASH_REDIS_REST_URL is set')
  if (env.UPSTASH_REDIS_REST_TOKEN && !env.UPSTASH_REDIS_REST_URL)
    fail('UPSTASH_REDIS_REST_URL', 'is required when UPSTASH_REDIS_REST_TOKEN is set')

  // Two adapters for one port would leave half the data (or the counters) where the other
  // instances never look; refuse rather than pick one silently.
  if (env.BLOB_READ_WRITE_TOKEN && env.S3_BUCKET)
    fail('S3_BUCKET', 'cannot be set together with BLOB_READ_WRITE_TOKEN; choose one blob store')
  for (const name of ['S3_REGION', 'S3_ENDPOINT', 'S3_FORCE_PATH_STYLE'] as const)
    if (rawEnv[name]?.trim() && !env.S3_BUCKET) fail('S3_BUCKET', `is required when ${name} is set`)
  if (env.REDIS_URL && env.UPSTASH_REDIS_REST_URL)
    fail('REDIS_URL', 'cannot be set together with UPSTASH_REDIS_REST_URL; choose one rate limiter')

  const inngestDev = env.INNGEST_DEV !== undefined && env.INNGEST_DEV !== '0' && env.INNGEST_DEV !== 'false'
  if (!inngestDev && env.INNGEST_SIGNING_KEY && !env.INNGEST_EVENT_KEY)
    fail(
      'INNGEST_EVENT_KEY',
      'is required with INNGEST_SIGNING_KEY (or set INNGEST_DEV=1 for the dev server)',
    )
  if (!inngestDev && env.INNGEST_EVENT_KEY && !env.INNGEST_SIGNING_KEY)
    fail(
      'INNGEST_SIGNING_KEY',
      'is required with INNGEST_EVENT_KEY (or set INNGEST_DEV=1 for the dev server)',
    )

  if (env.INSIGHTS_INTERVAL_MINUTES !== undefined && rawEnv.INSIGHTS_INTERVAL_HOURS?.trim())
    fail('INSIGHTS_INTERVAL_MINUTES', 'cannot be set together with INSIGHTS_INTERVAL_HOURS; choose one')

  if (env.AI_PROVIDER && !env.AI_MODEL) fail('AI_MODEL', 'is required when AI_PROVIDER is set')
  if (env.AI_PROVIDER && env.AI_PROVIDER !== 'openai-compatible' && !env.AI_API_KEY)
    fail('AI_API_KEY', `is required for AI_PROVIDER=${env.AI_PROVIDER}`)
  if (env.AI_PROVIDER === 'openai-compatible' && !env.AI_BASE_URL)
    fail('AI_BASE_URL', 'is required for AI_PROVIDER=openai-compatible')
  if (!env.AI_PROVIDER && env.AI_MODEL) fail('AI_PROVIDER', 'is required when AI_MODEL is set')

  // The dev server skips request signatures: in production /api/inngest would be open.
  if (env.NODE_ENV === 'production' && inngestDev)
    fail('INNGEST_DEV', 'must not be set in production; use INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY')

  let authSecret = env.AUTH_SECRET
  const authSecretGenerated = !authSecret
  if (!authSecret) authSecret = developmentAuthSecret(dataDir)

  return {
    nodeEnv: env.NODE_ENV,
    port: env.PORT,
    baseUrl,
    ingestUrl: env.INGEST_URL ?? baseUrl,
    dataDir,
    authSecret,
    authSecretGenerated,
    database: env.DATABASE_URL
      ? { kind: 'postgres', url: env.DATABASE_URL }
      : { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') },
    blob: env.BLOB_READ_WRITE_TOKEN
      ? { kind: 'vercel', token: env.BLOB_READ_WRITE_TOKEN }
      : env.S3_BUCKET
        ? {
            kind: 's3',
            bucket: env.S3_BUCKET,
            region: env.S3_REGION,
            endpoint: env.S3_ENDPOINT,
            forcePathStyle: env.S3_FORCE_PATH_STYLE,
          }
        : { kind: 'local', root: path.join(dataDir, 'blobs') },
    rateLimit:
      env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN
        ? { kind: 'upstash', url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN }
        : env.REDIS_URL
          ? { kind: 'redis', url: env.REDIS_URL }
          : { kind: 'memory' },
    jobs:
      inngestDev || env.INNGEST_SIGNING_KEY
        ? {
            kind: 'inngest',
            eventKey: env.INNGEST_EVENT_KEY,
            signingKey: env.INNGEST_SIGNING_KEY,
            dev: inngestDev,
            baseUrl: env.INNGEST_BASE_URL,
          }
        : { kind: 'in-process' },
    ai:
      env.AI_PROVIDER && env.AI_MODEL
        ? {
            kind: 'model',
            provider: env.AI_PROVIDER,
            model: env.AI_MODEL,
            apiKey: env.AI_API_KEY,
            baseUrl: env.AI_BASE_URL,
          }
        : { kind: 'none' },
    aiTimeoutMs: env.AI_TIMEOUT_SECONDS * 1000,
    oauth: {
      accessTokenTtlSeconds: env.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlDays: env.OAUTH_REFRESH_TOKEN_TTL_DAYS,
      authorizationCodeTtlSeconds: env.OAUTH_AUTHORIZATION_CODE_TTL_SECONDS,
      hostedRedirectOrigins: env.OAUTH_HOSTED_REDIRECT_ORIGINS.map((o) => o.replace(/\/$/, '')),
      extraRedirectUris: env.OAUTH_EXTRA_REDIRECT_URIS,
      refreshReuseGraceSeconds: env.OAUTH_REFRESH_REUSE_GRACE_SECONDS,
    },
    jobsLeaseSeconds: env.JOBS_LEASE_SECONDS,
    mcpAllowedOrigins: env.MCP_ALLOWED_ORIGINS.map((o) => new URL(o).origin),
    sessions: {
      idleSeconds: env.SESSION_IDLE_SECONDS,
      finalizerIntervalSeconds: env.FINALIZER_INTERVAL_SECONDS,
    },
    ingest: { automatedSessions: env.INGEST_AUTOMATED_SESSIONS },
    dataEncryptionKeys: env.DATA_ENCRYPTION_KEYS,
    analysis: { timeoutSeconds: env.ANALYSIS_TIMEOUT_SECONDS, memoryMb: env.ANALYSIS_MEMORY_MB },
    insights: {
      intervalHours:
        env.INSIGHTS_INTERVAL_MINUTES !== undefined
          ? env.INSIGHTS_INTERVAL_MINUTES / 60
          : env.INSIGHTS_INTERVAL_HOURS,
    },
    retention: { cron: env.RETENTION_CRON.trim() },
    sourcemaps: { retentionDays: env.SOURCEMAP_RETENTION_DAYS },
    webhooks: {
      retryDelaysSeconds: env.WEBHOOK_RETRY_DELAYS_SECONDS,
      allowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    },
    integrations: {
      slackWebhookHosts: env.SLACK_WEBHOOK_HOSTS.map((host) => host.toLowerCase()),
      linearApiUrl: env.LINEAR_API_URL,
      githubApiUrl: env.GITHUB_API_URL.replace(/\/$/, ''),
    },
    logLevel: env.LOG_LEVEL,
    clientAddress: { trustedProxyHops: env.TRUSTED_PROXY_HOPS, vercel: env.VERCEL },
    orgs: { defaultPlan: env.DEFAULT_PLAN },
  }
}

let cached: Config | undefined

/** The process-wide configuration, parsed from process.env on first use. */
export function getConfig(): Config {
  cached ??= parseConfig(process.env)
  return cached
}

/** Tests build their own configuration; this swaps the process-wide one. */
export function setConfigForTests(config: Config | undefined): void {
  cached = config
}
