import { ValidationError } from '@/lib/errors'
import { parseJson } from '@/lib/validation'
import { INVALID_BATCH } from './limits'
import { ReplayBatch } from './schema'
import { type IngestDeps, type StoredBatch, storeBatch } from './store-batch'

/** The ingest API's verb: a raw body of one organization's batch in, the stored batch out. */
export async function acceptReplayBatch(
  deps: IngestDeps,
  input: { organizationId: string; body: Buffer },
): Promise<StoredBatch> {
  const parsed = ReplayBatch.safeParse(parseJson(input.body, 'Request body must be valid JSON'))
  if (!parsed.success)
    throw new ValidationError(
      INVALID_BATCH,
      parsed.error.issues.map((issue) => ({
        path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
        message: issue.message,
        code: issue.code,
      })),
    )
  return storeBatch(deps, { organizationId: input.organizationId, batch: parsed.data, body: input.body })
}
