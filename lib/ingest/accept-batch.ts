import { ValidationError } from '@/lib/errors'
import { parseJson } from '@/lib/validation'
import { INVALID_BATCH } from './limits'
import { DEFAULT_NETWORK_POLICY, type NetworkPolicy, redactNetworkDetails } from './network-redaction'
import { ReplayBatch } from './schema'
import { type IngestDeps, type StoredBatch, storeBatch } from './store-batch'

/**
 * The ingest API's verb: a raw body of one organization's batch in, the stored batch out.
 * The body is stored as sent unless the organization's network policy changed a captured
 * request's details (docs/network-details.md); then the redacted batch is stored instead.
 */
export async function acceptReplayBatch(
  deps: IngestDeps,
  input: { organizationId: string; body: Buffer; networkPolicy?: NetworkPolicy },
): Promise<StoredBatch> {
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
  // After validation: `raw` is the batch that was accepted, serialised again only when changed.
  const redacted = redactNetworkDetails(raw, input.networkPolicy ?? DEFAULT_NETWORK_POLICY)
  const body = redacted ? reserialised(raw) : input.body
  return storeBatch(deps, { organizationId: input.organizationId, batch: parsed.data, body })
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
