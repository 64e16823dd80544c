import type { DbOrTx } from '@/db/client'
import { ForbiddenError, InvalidInputError } from '@/lib/errors'
import { type CreatedKey, createKey } from './create-key'

/** The kinds the dashboard creates: legacy MCP keys are listed and revoked there, never made. */
export type DashboardKeyType = 'ingest' | 'api'

/**
 * Creates a key from the settings page: an ingest key, or a Data API key whose
 * "Allow issue status updates" option adds `write:issues` to `read:service`, or whose
 * "Allow source map uploads" option makes it an upload-only key (`write:sourcemaps` alone).
 * "Allow privacy requests" adds `write:privacy`, and only an owner may tick it: such a key
 * erases and exports end users' data. "Allow reproduction results" makes an upload-only key
 * for CI (`write:verifications`), which may also upload source maps.
 */
export async function createDashboardKey(
  db: DbOrTx,
  input: {
    organizationId: string
    createdByUserId: string
    type: string
    name: string
    allowStatusUpdates: boolean
    allowSourcemapUploads?: boolean
    allowPrivacyRequests?: boolean
    allowReproductionResults?: boolean
    /** The creating member's role in the organization: privacy keys are owners' only. */
    createdByRole?: string
  },
): Promise<CreatedKey> {
  if (input.type !== 'ingest' && input.type !== 'api')
    throw new InvalidInputError(
      'Only ingest keys and Data API keys can be created here. AI agents connect through OAuth (Settings → MCP).',
    )
  if (input.type === 'api' && input.allowStatusUpdates && input.allowSourcemapUploads)
    throw new InvalidInputError(
      'A source map upload key can only upload source maps: untick “Allow issue status updates”, or create two keys.',
    )
  const privacy = input.type === 'api' && input.allowPrivacyRequests === true
  if (privacy && input.createdByRole !== 'owner')
    throw new ForbiddenError('Only organization owners can create keys that make privacy requests.')
  if (privacy && input.allowSourcemapUploads)
    throw new InvalidInputError(
      'A source map upload key can only upload source maps: untick “Allow privacy requests”, or create two keys.',
    )
  const verifications = input.type === 'api' && input.allowReproductionResults === true
  if (verifications && input.allowStatusUpdates)
    throw new InvalidInputError(
      'A reproduction result key can only report reproduction results (and upload source maps): untick “Allow issue status updates”, or create two keys.',
    )
  if (verifications && privacy)
    throw new InvalidInputError(
      'A reproduction result key can only report reproduction results (and upload source maps): untick “Allow privacy requests”, or create two keys.',
    )
  return createKey(db, {
    organizationId: input.organizationId,
    type: input.type,
    name: input.name,
    write: input.type === 'api' && input.allowStatusUpdates,
    sourcemaps: input.type === 'api' && input.allowSourcemapUploads === true,
    privacy,
    verifications,
    createdByUserId: input.createdByUserId,
  })
}
