import { getConfig } from '@/lib/config'
import { type IngestHandler, ingestPreflight, ingestRoute, nodeIngestRoute } from '@/lib/http/ingest'
import { json } from '@/lib/http/respond'
import { acceptReplayBatch } from '@/lib/ingest/accept-batch'
import { getIngestDeps } from './ingest-deps'

/**
 * POST /api/sdk/replay, wired to the app's adapters. The route is a Pages Router API route
 * (pages/api/sdk/replay.ts) serving `replayIngestNode`, which reads the body from Node's own
 * stream (docs/capacity.md#the-ingest-door); `replayIngest` is the same handler behind the web
 * `Request` door, which the tests call in-process and compare with the Node door.
 */
const acceptReplay: IngestHandler = async ({ principal, body, userAgent }) => {
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
}

export const replayIngest = ingestRoute(acceptReplay)
export const replayIngestNode = nodeIngestRoute(acceptReplay)
export const replayPreflight = ingestPreflight
