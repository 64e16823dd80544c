import { serveAdminChannel } from '@/lib/cli/channel/serve'
import { getConfig } from '@/lib/config'
import { closeDatabase, getDatabaseHandle } from '@/lib/db'
import { logger } from '@/lib/log'
import { operatorMessage } from '@/lib/operator-errors'
import { getRateLimiter } from '@/lib/ratelimit'
import { getBlobStore } from '@/lib/storage'
import { getJobsEngine } from './app'
import { cliWiring } from './cli'

/**
 * Must equal SERVICE_STOP in server/front.mjs: the front server calls it once Next has finished
 * the requests in flight, so that a stop (Ctrl+C of `npm run dev` above all) closes the
 * embedded database and its admin socket instead of leaving them to the next start.
 */
const SERVICE_STOP = Symbol.for('session-replay-issues.stop-service')
/**
 * Must equal SERVICE_STARTED in server.mjs, which sets it before Next loads and waits for it
 * before it listens and prints "Ready": in production Next runs register() in the background
 * while the server starts listening, so a configuration the service refuses used to look ready.
 */
const SERVICE_STARTED = Symbol.for('session-replay-issues.service-started')

const state = globalThis as typeof globalThis & {
  __serviceStart?: Promise<void>
  [SERVICE_STOP]?: () => Promise<void>
  [SERVICE_STARTED]?: { resolve: () => void; reject: (error: unknown) => void }
}

async function start(): Promise<void> {
  const config = getConfig()
  const handle = await getDatabaseHandle()
  const blob = getBlobStore()
  const rateLimiter = getRateLimiter()
  const jobs = getJobsEngine()
  logger.info(
    {
      database: handle.kind,
      blob: blob.kind,
      rateLimit: rateLimiter.kind,
      jobs: jobs.kind,
      baseUrl: config.baseUrl,
    },
    'service configured',
  )
  if (config.authSecretGenerated)
    logger.warn(
      'AUTH_SECRET is not set: using a development secret kept in DATA_DIR (never do this in production)',
    )
  if (config.webhooks.allowPrivateTargets)
    logger.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhooks may reach loopback and private addresses')

  await jobs.start()

  // The embedded database is ours alone while we run: the admin CLI hands its commands to us.
  const channel =
    handle.kind === 'pglite' ? await serveAdminChannel(config.dataDir, handle, cliWiring) : undefined
  if (channel) logger.info({ socket: channel.address() }, 'admin commands accepted on the admin channel')

  // Next drains in-flight requests on SIGTERM and then exits by itself; here we only stop
  // taking background work so a run ends at a step boundary. The database stays open for
  // the requests Next is still finishing, and closes when the front server says they are done.
  let jobsStopped: Promise<void> | undefined
  const stopJobs = (signal: string) => {
    if (!jobsStopped) {
      logger.info({ signal }, 'shutting down: stopping background work')
      jobsStopped = jobs
        .stop()
        .catch((error: unknown) => logger.error({ err: error }, 'error while stopping background work'))
    }
    return jobsStopped
  }
  process.once('SIGTERM', () => stopJobs('SIGTERM'))
  process.once('SIGINT', () => stopJobs('SIGINT'))
  state[SERVICE_STOP] = async () => {
    await stopJobs('stop')
    await new Promise((resolve) => (channel ? channel.close(resolve) : resolve(undefined)))
    await closeDatabase()
    logger.info('stopped')
  }
}

/**
 * Validates configuration, migrates the database and starts the in-process background work.
 * A fault the operator can fix (a bad variable, the database held by the CLI or unreachable)
 * stops the process with one line; anything else is a bug and keeps its stack.
 */
export function startService(): Promise<void> {
  state.__serviceStart ??= start().then(
    () => state[SERVICE_STARTED]?.resolve(),
    (error: unknown) => {
      state.__serviceStart = undefined
      const message = operatorMessage(error)
      if (message) {
        console.error(message)
        process.exit(1)
      }
      state[SERVICE_STARTED]?.reject(error)
      throw error
    },
  )
  return state.__serviceStart
}
