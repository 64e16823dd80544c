import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { checkHealthCached } from '@/lib/health/check'
import { json } from '@/lib/http/respond'
import { getRateLimiter } from '@/lib/ratelimit'
import { getBlobStore } from '@/lib/storage'

/** For the host's health checks: 200 when every dependency answers, 503 with the failing ones. */
export async function GET(): Promise<Response> {
  const config = getConfig()
  const report = await checkHealthCached({
    db: getDb,
    databaseKind: config.database.kind,
    blob: getBlobStore,
    rateLimiter: getRateLimiter,
    jobsKind: config.jobs.kind,
  })
  return json(report, report.status === 'ok' ? 200 : 503)
}
