import { ConfigError, getConfig } from '@/lib/config'
import { closeDatabase, getDatabaseHandle } from '@/lib/db'
import { getJobsEngine } from '@/lib/jobs'
import { logger } from '@/lib/log'
import { getRateLimiter } from '@/lib/ratelimit'
import { getBlobStore } from '@/lib/storage'

const state = globalThis as typeof globalThis & { __serviceStarted?: boolean }

/**
 * Validates configuration, migrates the database and starts the in-process background work.
 * A bad configuration stops the process with one line that names the variable.
 */
export async function startService(): Promise<void> {
  if (state.__serviceStarted) return
  state.__serviceStarted = true
  let config: ReturnType<typeof getConfig>
  try {
    config = getConfig()
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message)
      process.exit(1)
    }
    throw error
  }

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

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down: finishing background work')
    try {
      await jobs.stop()
      await closeDatabase()
    } catch (error) {
      logger.error({ err: error }, 'error during shutdown')
    }
  }
  // Next finishes in-flight requests on SIGTERM; we stop taking background work and close
  // the database so no row is left half-written.
  process.once('SIGTERM', () => void shutdown('SIGTERM'))
  process.once('SIGINT', () => void shutdown('SIGINT'))
}
