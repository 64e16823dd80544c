import { ingestPreflight, ingestRoute } from '@/lib/http/ingest'
import { json } from '@/lib/http/respond'
import { acceptReplayBatch } from '@/lib/ingest/accept-batch'
import { getIngestDeps } from '@/lib/ingest/deps'

export const POST = ingestRoute(async ({ principal, body }) => {
  await acceptReplayBatch(await getIngestDeps(), {
    organizationId: principal.organizationId,
    body,
    networkPolicy: principal.networkPolicy,
  })
  return json({ ok: true })
})

export const OPTIONS = ingestPreflight
