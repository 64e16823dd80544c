import { eq } from 'drizzle-orm'
import { z } from 'zod'
import type { DbOrTx } from '@/db/client'
import { type CredentialKind, credentials, organizations } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { operatorActor } from '@/lib/audit/operator'
import { recordAudit } from '@/lib/audit/record'
import { InvalidInputError, isUuid, NotFoundError } from '@/lib/errors'
import { isStorableText, NOT_STORABLE, parseInput } from '@/lib/validation'
import { SCOPES, type Scope } from './scopes'
import { displayPrefix, generateToken, hashToken, TOKEN_PREFIXES } from './tokens'

const KeyType = z.enum(['ingest', 'api', 'mcp'], { error: 'Key type must be one of: ingest, api, mcp' })
const KeyName = z
  .string()
  .refine(isStorableText, `Key name ${NOT_STORABLE}`)
  .trim()
  .min(1, 'Key name must not be empty')
  .max(64, 'Key name must be at most 64 characters')

const DEFAULT_NAMES: Record<CredentialKind, string> = {
  ingest: 'Ingest key',
  api: 'Data API key',
  mcp: 'MCP key',
}

export interface CreatedKey {
  id: string
  type: CredentialKind
  /** The full key: shown this once, stored only as its SHA-256. */
  key: string
  scopes: Scope[]
  name: string
  displayPrefix: string
}

/**
 * A source map key is upload-only (docs/source-maps.md, "Scopes"): it lives in CI secrets,
 * where a leak must not expose recordings or issues, so it gets write:sourcemaps alone. A
 * verification key (docs/releases.md#verification) is the same kind of CI secret, so it is
 * upload-only too, and may be the same key as the source map one.
 */
function scopesFor(
  type: CredentialKind,
  flags: { write: boolean; sourcemaps: boolean; privacy: boolean; verifications: boolean },
): Scope[] {
  const { write, sourcemaps, privacy, verifications } = flags
  if (type === 'ingest') return [SCOPES.ingest]
  if (type === 'mcp') return [SCOPES.read]
  if (sourcemaps || verifications)
    return [
      ...(sourcemaps ? [SCOPES.writeSourcemaps] : []),
      ...(verifications ? [SCOPES.writeVerifications] : []),
    ]
  const scopes: Scope[] = write ? [SCOPES.read, SCOPES.writeIssues] : [SCOPES.read]
  return privacy ? [...scopes, SCOPES.writePrivacy] : scopes
}

export const SOURCEMAPS_ONLY_API = 'Only api keys can upload source maps (--sourcemaps)'
export const PRIVACY_ONLY_API = 'Only api keys can make privacy requests (--privacy)'
export const PRIVACY_WITHOUT_SOURCEMAPS =
  'A source map upload key (--sourcemaps) can only upload source maps; create a separate key for privacy requests (--privacy)'
export const SOURCEMAPS_WITHOUT_WRITE =
  'A source map upload key (--sourcemaps) can only upload source maps; create a separate key for issue status updates (--write)'

export const VERIFICATIONS_ONLY_API = 'Only api keys can report reproduction results (--verifications)'
export const VERIFICATIONS_WITHOUT_WRITE =
  'A reproduction result key (--verifications) can only report reproduction results (and upload source maps with --sourcemaps); create a separate key for issue status updates (--write)'
export const VERIFICATIONS_WITHOUT_PRIVACY =
  'A reproduction result key (--verifications) can only report reproduction results (and upload source maps with --sourcemaps); create a separate key for privacy requests (--privacy)'

export async function createKey(
  db: DbOrTx,
  input: {
    organizationId: string
    type: string
    write?: boolean
    /** An upload-only key for CI: write:sourcemaps and nothing else. */
    sourcemaps?: boolean
    /**
     * Adds write:privacy (erasures, exports, re-masking, the audit trail). Only owners may ask
     * for it: the dashboard checks the member's role, the CLI is the operator's.
     */
    privacy?: boolean
    /**
     * An upload-only key for CI that reports reproduction results: write:verifications, with
     * write:sourcemaps when `sourcemaps` is set too, and nothing else.
     */
    verifications?: boolean
    name?: string
    createdByUserId?: string
    /** Who the audit trail names; by default the member in createdByUserId, else the admin CLI. */
    actor?: Actor
  },
): Promise<CreatedKey> {
  const type = parseInput(KeyType, input.type)
  if (input.write && type !== 'api')
    throw new InvalidInputError('Only api keys can allow issue status updates (--write)')
  if (input.sourcemaps && type !== 'api') throw new InvalidInputError(SOURCEMAPS_ONLY_API)
  if (input.sourcemaps && input.write) throw new InvalidInputError(SOURCEMAPS_WITHOUT_WRITE)
  if (input.privacy && type !== 'api') throw new InvalidInputError(PRIVACY_ONLY_API)
  if (input.privacy && input.sourcemaps) throw new InvalidInputError(PRIVACY_WITHOUT_SOURCEMAPS)
  if (input.verifications && type !== 'api') throw new InvalidInputError(VERIFICATIONS_ONLY_API)
  if (input.verifications && input.write) throw new InvalidInputError(VERIFICATIONS_WITHOUT_WRITE)
  if (input.verifications && input.privacy) throw new InvalidInputError(VERIFICATIONS_WITHOUT_PRIVACY)
  const name = parseInput(KeyName, input.name ?? DEFAULT_NAMES[type])
  await requireOrganization(db, input.organizationId)
  const prefix = TOKEN_PREFIXES[type]
  const key = generateToken(prefix)
  const scopes = scopesFor(type, {
    write: Boolean(input.write),
    sourcemaps: Boolean(input.sourcemaps),
    privacy: Boolean(input.privacy),
    verifications: Boolean(input.verifications),
  })
  const actor =
    input.actor ??
    (input.createdByUserId
      ? { organizationId: input.organizationId, actorType: 'user' as const, actorId: input.createdByUserId }
      : operatorActor(input.organizationId))
  // The key and its `key.created` entry exist together or not at all.
  const row = await db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(credentials)
      .values({
        organizationId: input.organizationId,
        kind: type,
        name,
        tokenHash: hashToken(key),
        displayPrefix: displayPrefix(key, prefix),
        scopes,
        createdByUserId: input.createdByUserId ?? null,
      })
      .returning({ id: credentials.id, displayPrefix: credentials.displayPrefix })
    await recordAudit(tx, actor, {
      action: 'key.created',
      targetType: 'credential',
      targetId: inserted!.id,
      metadata: { type, name, scopes },
    })
    return inserted!
  })
  return { id: row.id, type, key, scopes, name, displayPrefix: row.displayPrefix }
}

/**
 * The same refusal as getOrganization, read here because lib/orgs invalidates the credential
 * cache and so imports lib/credentials: credentials must not import it back.
 */
async function requireOrganization(db: DbOrTx, id: string): Promise<void> {
  if (!isUuid(id)) throw new NotFoundError(`Organization not found: ${id}`)
  const [row] = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, id))
  if (!row) throw new NotFoundError(`Organization not found: ${id}`)
}
