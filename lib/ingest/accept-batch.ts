import { ValidationError } from '@/lib/errors'
import type { MaskRules } from '@/lib/privacy/mask-rules'
import { EventMasker } from '@/lib/privacy/remask-events'
import { parseJson } from '@/lib/validation'
import { INVALID_BATCH } from './limits'
import { DEFAULT_NETWORK_POLICY, type NetworkPolicy, redactNetworkDetails } from './network-redaction'
import { ReplayBatch } from './schema'
import { batchAutomation } from './session-automation'
import { type IngestDeps, type StoredBatch, storeBatch } from './store-batch'

/** What ingest does with automated traffic (INGEST_AUTOMATED_SESSIONS, docs/configuration.md). */
export type AutomatedSessionsPolicy = 'store' | 'drop'

/**
 * The ingest API's verb: a raw body of one organization's batch in, the stored batch out
 * (null when it was automated traffic the operator chose not to keep: nothing is stored, and
 * the sender gets the same success answer).
 * The body is stored as sent unless the organization's network policy changed a captured
 * request's details (docs/network-details.md) or its mask settings masked something
 * (docs/privacy.md#re-masking); then the changed batch is stored instead.
 */
export async function acceptReplayBatch(
  deps: IngestDeps,
  input: {
    organizationId: string
    body: Buffer
    networkPolicy?: NetworkPolicy
    /**
     * The organization's mask settings (docs/privacy.md#re-masking): patterns on every string,
     * selectors within this batch's full snapshots and added subtrees. Undefined: none.
     */
    maskRules?: MaskRules
    /** The request's User-Agent header: marks the traffic of recorders that do not say. */
    requestUserAgent?: string | null
    automatedSessions?: AutomatedSessionsPolicy
  },
): Promise<StoredBatch | null> {
  const raw = parseJson(input.body, 'Request body must be valid JSON')
  const parsed = ReplayBatch.safeParse(raw)
  if (!parsed.success)
    throw new ValidationError(
      INVALID_BATCH,
      parsed.error.issues.map((issue) => ({
        path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
        message: issue.message,
        code: issue.code,
      })),
    )
  const automation = batchAutomation(parsed.data, input.requestUserAgent ?? null)
  if (automation && input.automatedSessions === 'drop') return null
  // After validation: `raw` is the batch that was accepted, serialised again only when changed.
  const redacted = redactNetworkDetails(raw, input.networkPolicy ?? DEFAULT_NETWORK_POLICY)
  // Only an organization with rules pays for this walk. Each batch gets a fresh mirror: a text
  // or attribute change of a node from an earlier batch is caught by the patterns and by a
  // later re-mask, not here (ingest keeps no state between batches).
  const masked = input.maskRules
    ? new EventMasker(input.maskRules).maskEvents((raw as { replay: { events: unknown[] } }).replay.events)
    : false
  const body = redacted || masked ? reserialised(raw) : input.body
  return storeBatch(deps, { organizationId: input.organizationId, batch: parsed.data, body, automation })
}

/**
 * The redacted batch as JSON. JSON.stringify recurses: a batch nested deeper than the stack
 * allows (only a hostile one is) is refused rather than stored unredacted.
 */
function reserialised(raw: unknown): Buffer {
  try {
    return Buffer.from(JSON.stringify(raw))
  } catch {
    throw new ValidationError(INVALID_BATCH, [
      { path: ['replay', 'events'], message: 'events are nested too deeply to redact', code: 'custom' },
    ])
  }
}
