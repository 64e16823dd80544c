import { getIngestDeps } from '@/inngest/ingest-deps'
import { getConfig } from '@/lib/config'
import { ingestPreflight, ingestRoute } from '@/lib/http/ingest'
import { json } from '@/lib/http/respond'
import { acceptReplayBatch } from '@/lib/ingest/accept-batch'

export const POST = ingestRoute(async ({ principal, body, userAgent }) => {
  await acceptReplayBatch(await getIngestDeps(), {
    organizationId: principal.organizationId,
    body,
    networkPolicy: principal.networkPolicy,
    maskRules: principal.mask?.rules,
    requestUserAgent: userAgent,
    automatedSessions: getConfig().ingest.automatedSessions,
  })
  // The recorder adds the organization's selectors to its own masking (docs/privacy.md#re-masking);
  // clients that do not know the field ignore it.
  const selectors = principal.mask?.selectors ?? []
  return json(selectors.length > 0 ? { ok: true, mask: { selectors } } : { ok: true })
})

export const OPTIONS = ingestPreflight
