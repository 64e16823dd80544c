import { getConfig } from '@/lib/config'
import { ingestPreflight, ingestRoute } from '@/lib/http/ingest'
import { json } from '@/lib/http/respond'
import { acceptReplayBatch } from '@/lib/ingest/accept-batch'
import { getIngestDeps } from '@/lib/ingest/deps'

export const POST = ingestRoute(async ({ principal, body, userAgent }) => {
  await acceptReplayBatch(await getIngestDeps(), {
    organizationId: principal.organizationId,
    body,
    networkPolicy: principal.networkPolicy,
    requestUserAgent: userAgent,
    automatedSessions: getConfig().ingest.automatedSessions,
  })
  return json({ ok: true })
})

export const OPTIONS = ingestPreflight
