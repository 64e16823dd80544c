import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, parseConfig, REQUIRED_IN_PRODUCTION } from '@/lib/config'

const dataDir = () => mkdtempSync(path.join(tmpdir(), 'cfg-'))

describe('configuration', () => {
  it('runs on embedded defaults with nothing set', () => {
    const dir = dataDir()
    const config = parseConfig({ DATA_DIR: dir })
    expect(config.port).toBe(3000)
    expect(config.baseUrl).toBe('http://localhost:3000')
    expect(config.ingestUrl).toBe('http://localhost:3000')
    expect(config.database).toEqual({ kind: 'pglite', dataDir: path.join(dir, 'pglite') })
    expect(config.blob).toEqual({ kind: 'local', root: path.join(dir, 'blobs') })
    expect(config.rateLimit).toEqual({ kind: 'memory' })
    expect(config.jobs).toEqual({ kind: 'in-process' })
    expect(config.ai).toEqual({ kind: 'none' })
    expect(config.oauth).toEqual({
      accessTokenTtlSeconds: 3600,
      refreshTokenTtlDays: 30,
      authorizationCodeTtlSeconds: 60,
      hostedRedirectOrigins: ['https://claude.ai', 'https://claude.com', 'https://chatgpt.com'],
      extraRedirectUris: [],
      refreshReuseGraceSeconds: 0,
    })
    expect(config.sessions).toEqual({ idleSeconds: 60, finalizerIntervalSeconds: 15 })
    expect(config.insights).toEqual({ intervalHours: 24 })
    expect(config.retention).toEqual({ cron: '17 * * * *' })
    expect(config.jobsLeaseSeconds).toBe(60)
    expect(config.integrations).toEqual({
      slackWebhookHosts: ['hooks.slack.com'],
      linearApiUrl: 'https://api.linear.app/graphql',
      githubApiUrl: 'https://api.github.com',
    })
    expect(config.webhooks).toEqual({ retryDelaysSeconds: [60, 300, 1500], allowPrivateTargets: false })
    expect(config.logLevel).toBe('info')
  })

  it('generates the development AUTH_SECRET once, private to the owner, and keeps it', () => {
    const dir = dataDir()
    const first = parseConfig({ DATA_DIR: dir })
    const second = parseConfig({ DATA_DIR: dir })
    expect(first.authSecret).toHaveLength(43)
    expect(second.authSecret).toBe(first.authSecret)
    expect(first.authSecretGenerated).toBe(true)
    expect(readFileSync(path.join(dir, 'auth-secret'), 'utf8').trim()).toBe(first.authSecret)
    expect(statSync(path.join(dir, 'auth-secret')).mode & 0o777).toBe(0o600)
  })

  it('refuses a development secret file that is too short instead of using it', () => {
    const dir = dataDir()
    writeFileSync(path.join(dir, 'auth-secret'), 'short\n')
    expect(() => parseConfig({ DATA_DIR: dir })).toThrow(
      /^Invalid environment variable AUTH_SECRET: is not set and /,
    )
  })

  it('takes the insight interval in minutes and the retention schedule for short periods (several instances are tested over one minute)', () => {
    const config = parseConfig({
      DATA_DIR: dataDir(),
      INSIGHTS_INTERVAL_MINUTES: '15',
      RETENTION_CRON: ' 5 3 * * * ',
    })
    expect(config.insights).toEqual({ intervalHours: 0.25 })
    expect(config.retention).toEqual({ cron: '5 3 * * *' })
  })

  it('derives the adapters from the deployment variables', () => {
    const config = parseConfig({
      DATA_DIR: dataDir(),
      PORT: '8080',
      BASE_URL: 'https://replay.example.com/',
      INGEST_URL: 'https://ingest.example.com',
      DATABASE_URL: 'postgres://u:p@db.example.com:5432/app',
      AUTH_SECRET: 'x'.repeat(40),
      BLOB_READ_WRITE_TOKEN: 'vercel_blob_rw_abc',
      UPSTASH_REDIS_REST_URL: 'https://eu1.upstash.io',
      UPSTASH_REDIS_REST_TOKEN: 'tok',
      INNGEST_EVENT_KEY: 'ek',
      INNGEST_SIGNING_KEY: 'signkey-prod-123',
      OAUTH_EXTRA_REDIRECT_URIS: 'cursor://anysphere.cursor-mcp/oauth/callback',
      WEBHOOK_RETRY_DELAYS_SECONDS: '0.1, 0.2,0.4',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
      AI_PROVIDER: 'openai',
      AI_MODEL: 'gpt-5-mini',
      AI_API_KEY: 'sk-test',
    })
    expect(config.baseUrl).toBe('https://replay.example.com')
    expect(config.ingestUrl).toBe('https://ingest.example.com')
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://u:p@db.example.com:5432/app' })
    expect(config.blob).toEqual({ kind: 'vercel', token: 'vercel_blob_rw_abc' })
    expect(config.rateLimit).toEqual({ kind: 'upstash', url: 'https://eu1.upstash.io', token: 'tok' })
    expect(config.jobs).toMatchObject({
      kind: 'inngest',
      eventKey: 'ek',
      signingKey: 'signkey-prod-123',
      dev: false,
    })
    expect(config.oauth.extraRedirectUris).toEqual(['cursor://anysphere.cursor-mcp/oauth/callback'])
    expect(config.webhooks).toEqual({ retryDelaysSeconds: [0.1, 0.2, 0.4], allowPrivateTargets: true })
    expect(config.ai).toMatchObject({ kind: 'model', provider: 'openai', model: 'gpt-5-mini' })
    expect(config.authSecretGenerated).toBe(false)
  })

  it('chooses the S3-compatible blob store with S3_BUCKET, region and endpoint optional', () => {
    const aws = parseConfig({ DATA_DIR: dataDir(), S3_BUCKET: 'replays' })
    expect(aws.blob).toEqual({
      kind: 's3',
      bucket: 'replays',
      region: undefined,
      endpoint: undefined,
      forcePathStyle: false,
    })
    const minio = parseConfig({
      DATA_DIR: dataDir(),
      S3_BUCKET: 'replays',
      S3_REGION: 'us-east-1',
      S3_ENDPOINT: 'http://minio:9000/',
      S3_FORCE_PATH_STYLE: 'true',
    })
    expect(minio.blob).toEqual({
      kind: 's3',
      bucket: 'replays',
      region: 'us-east-1',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
    })
  })

  it('treats empty strings as unset', () => {
    const config = parseConfig({
      DATA_DIR: dataDir(),
      DATABASE_URL: '',
      PORT: ' ',
      UPSTASH_REDIS_REST_URL: '',
    })
    expect(config.database.kind).toBe('pglite')
    expect(config.port).toBe(3000)
  })

  it('uses the Inngest dev server with INNGEST_DEV and no keys', () => {
    const config = parseConfig({
      DATA_DIR: dataDir(),
      INNGEST_DEV: '1',
      INNGEST_BASE_URL: 'http://127.0.0.1:8288',
    })
    expect(config.jobs).toMatchObject({ kind: 'inngest', dev: true, baseUrl: 'http://127.0.0.1:8288' })
  })

  const invalid: [Record<string, string>, string][] = [
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ BASE_URL: 'not a url' }, 'BASE_URL'],
    [{ BASE_URL: 'ftp://example.com' }, 'BASE_URL'],
    [{ DATABASE_URL: 'mysql://localhost/db' }, 'DATABASE_URL'],
    [{ AUTH_SECRET: 'short' }, 'AUTH_SECRET'],
    [
      {
        NODE_ENV: 'production',
        AUTH_SECRET: 'x'.repeat(40),
        BASE_URL: 'https://replay.example.com',
        INNGEST_DEV: '1',
      },
      'INNGEST_DEV',
    ],
    [{ UPSTASH_REDIS_REST_URL: 'https://x.upstash.io' }, 'UPSTASH_REDIS_REST_TOKEN'],
    [{ UPSTASH_REDIS_REST_TOKEN: 't' }, 'UPSTASH_REDIS_REST_URL'],
    [{ S3_BUCKET: 'replays', BLOB_READ_WRITE_TOKEN: 'vercel_blob_rw_abc' }, 'S3_BUCKET'],
    [{ S3_ENDPOINT: 'http://minio:9000' }, 'S3_BUCKET'],
    [{ S3_REGION: 'eu-west-1' }, 'S3_BUCKET'],
    [{ S3_BUCKET: 'Replays_Bucket' }, 'S3_BUCKET'],
    [{ S3_BUCKET: 'replays', S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT'],
    [{ S3_BUCKET: 'replays', S3_FORCE_PATH_STYLE: 'yes' }, 'S3_FORCE_PATH_STYLE'],
    [{ INNGEST_SIGNING_KEY: 'k' }, 'INNGEST_EVENT_KEY'],
    [{ INNGEST_EVENT_KEY: 'k' }, 'INNGEST_SIGNING_KEY'],
    [{ OAUTH_ACCESS_TOKEN_TTL_SECONDS: '0' }, 'OAUTH_ACCESS_TOKEN_TTL_SECONDS'],
    [{ OAUTH_REFRESH_TOKEN_TTL_DAYS: '1.5' }, 'OAUTH_REFRESH_TOKEN_TTL_DAYS'],
    [{ OAUTH_HOSTED_REDIRECT_ORIGINS: 'http://claude.ai' }, 'OAUTH_HOSTED_REDIRECT_ORIGINS'],
    [{ OAUTH_HOSTED_REDIRECT_ORIGINS: 'https://claude.ai/callback' }, 'OAUTH_HOSTED_REDIRECT_ORIGINS'],
    [{ OAUTH_EXTRA_REDIRECT_URIS: 'https://x.example/cb#frag' }, 'OAUTH_EXTRA_REDIRECT_URIS'],
    [{ OAUTH_REFRESH_REUSE_GRACE_SECONDS: '-1' }, 'OAUTH_REFRESH_REUSE_GRACE_SECONDS'],
    [{ SESSION_IDLE_SECONDS: 'soon' }, 'SESSION_IDLE_SECONDS'],
    [{ FINALIZER_INTERVAL_SECONDS: '-5' }, 'FINALIZER_INTERVAL_SECONDS'],
    [{ INSIGHTS_INTERVAL_HOURS: '0' }, 'INSIGHTS_INTERVAL_HOURS'],
    [{ INSIGHTS_INTERVAL_MINUTES: '0.5' }, 'INSIGHTS_INTERVAL_MINUTES'],
    [{ INSIGHTS_INTERVAL_MINUTES: '7' }, 'INSIGHTS_INTERVAL_MINUTES'],
    [{ INSIGHTS_INTERVAL_MINUTES: '90' }, 'INSIGHTS_INTERVAL_MINUTES'],
    [{ S3_FORCE_PATH_STYLE: '1' }, 'S3_BUCKET'],
    [{ INSIGHTS_INTERVAL_MINUTES: '5', INSIGHTS_INTERVAL_HOURS: '1' }, 'INSIGHTS_INTERVAL_MINUTES'],
    [{ RETENTION_CRON: '*/5 * * * * *' }, 'RETENTION_CRON'],
    [{ RETENTION_CRON: '61 * * * *' }, 'RETENTION_CRON'],
    [{ RETENTION_CRON: 'daily' }, 'RETENTION_CRON'],
    [{ JOBS_LEASE_SECONDS: '4' }, 'JOBS_LEASE_SECONDS'],
    [{ SLACK_WEBHOOK_HOSTS: 'https://hooks.slack.com' }, 'SLACK_WEBHOOK_HOSTS'],
    [{ LINEAR_API_URL: 'ftp://linear' }, 'LINEAR_API_URL'],
    [{ GITHUB_API_URL: 'github.example.com' }, 'GITHUB_API_URL'],
    [{ WEBHOOK_RETRY_DELAYS_SECONDS: '60,300' }, 'WEBHOOK_RETRY_DELAYS_SECONDS'],
    [{ WEBHOOK_RETRY_DELAYS_SECONDS: '60,abc,1500' }, 'WEBHOOK_RETRY_DELAYS_SECONDS'],
    [{ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' }, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'],
    [{ AI_PROVIDER: 'skynet' }, 'AI_PROVIDER'],
    [{ AI_PROVIDER: 'openai' }, 'AI_MODEL'],
    [{ AI_PROVIDER: 'openai', AI_MODEL: 'm' }, 'AI_API_KEY'],
    [{ AI_PROVIDER: 'openai-compatible', AI_MODEL: 'm' }, 'AI_BASE_URL'],
    [{ AI_MODEL: 'm' }, 'AI_PROVIDER'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
  ]

  it.each(invalid)('refuses %o naming %s in one line', (env, variable) => {
    let error: unknown
    try {
      parseConfig({ DATA_DIR: dataDir(), ...env })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ConfigError)
    const message = (error as Error).message
    expect(message).toContain(`Invalid environment variable ${variable}:`)
    expect(message).not.toContain('\n')
  })
})

describe('parseConfig: what production needs', () => {
  const missing: [Record<string, string>, string[]][] = [
    [{ BASE_URL: 'https://replay.example.com' }, ['AUTH_SECRET']],
    [{ AUTH_SECRET: 'x'.repeat(40) }, ['BASE_URL']],
    [{}, ['BASE_URL', 'AUTH_SECRET']],
  ]

  it.each(missing)('without %o names %j in one line, each with what to set', (env, names) => {
    let error: unknown
    try {
      parseConfig({ DATA_DIR: dataDir(), NODE_ENV: 'production', ...env })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ConfigError)
    const message = (error as Error).message
    expect(message).toMatch(/^Missing environment variables? required in production: /)
    for (const name of names)
      expect(message).toContain(
        `${name} (${REQUIRED_IN_PRODUCTION[name as keyof typeof REQUIRED_IN_PRODUCTION]})`,
      )
    for (const name of Object.keys(REQUIRED_IN_PRODUCTION).filter((n) => !names.includes(n)))
      expect(message).not.toContain(name)
    expect(message).not.toContain('\n')
  })
})

describe('parseConfig: REDIS_URL, the plain-Redis rate limiter', () => {
  it('chooses it for redis:// and rediss:// URLs, credentials and all', () => {
    for (const url of ['redis://127.0.0.1:6379', 'rediss://default:pw@redis.example.com:6380/2']) {
      expect(parseConfig({ DATA_DIR: dataDir(), REDIS_URL: url }).rateLimit).toEqual({ kind: 'redis', url })
    }
    expect(parseConfig({ DATA_DIR: dataDir(), REDIS_URL: '' }).rateLimit).toEqual({ kind: 'memory' })
  })

  const refused: [Record<string, string>, string][] = [
    [{ REDIS_URL: 'http://:secret-pw@redis.example.com' }, 'must be a redis:// or rediss:// URL with a host'],
    [{ REDIS_URL: 'redis.example.com:6379' }, 'must be a redis:// or rediss:// URL with a host'],
    [{ REDIS_URL: 'redis://:secret-pw@' }, 'must be a redis:// or rediss:// URL with a host'],
    [
      {
        REDIS_URL: 'redis://:secret-pw@redis.example.com',
        UPSTASH_REDIS_REST_URL: 'https://x.upstash.io',
        UPSTASH_REDIS_REST_TOKEN: 't',
      },
      'cannot be set together with UPSTASH_REDIS_REST_URL',
    ],
  ]

  it.each(refused)('refuses %o, naming REDIS_URL without echoing it', (env, reason) => {
    let error: unknown
    try {
      parseConfig({ DATA_DIR: dataDir(), ...env })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toContain(`Invalid environment variable REDIS_URL: ${reason}`)
    expect((error as Error).message).not.toContain('secret-pw')
  })
})
