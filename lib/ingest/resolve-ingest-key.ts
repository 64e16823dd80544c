import type { DbOrTx } from '@/db/client'
import { cachedCredential } from '@/lib/credentials/credential-cache'
import { findIngestCredential } from '@/lib/credentials/ingest-credential'
import { hashToken, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import { touchCredential } from '@/lib/credentials/touch'
import { UnauthorizedError } from '@/lib/errors'
import type { NetworkPolicy } from '@/lib/ingest/network-redaction'
import { compileMaskRules, hasMaskRules, type MaskRules } from '@/lib/privacy/mask-rules'

export const MISSING_API_KEY = 'Missing API key'
export const INVALID_API_KEY = 'Invalid or revoked API key'

export interface IngestPrincipal {
  credentialId: string
  organizationId: string
  /** What ingest does with captured network details: the organization's policy (lib/ingest/network-redaction.ts). */
  networkPolicy: NetworkPolicy
  /**
   * The organization's mask settings, compiled once per cache entry; null when it has none
   * (the common case, which costs ingest nothing).
   */
  mask: { selectors: string[]; rules: MaskRules } | null
}

/**
 * Resolves a public ingest key (`svc_pk_`). The lookup is by the SHA-256 of the whole key
 * through a unique index, so no secret is ever compared byte by byte; a Data API key, a
 * revoked key and an unknown key all get the same answer.
 *
 * A key that resolved is kept in the shared credential cache for 5 s, so a busy site's key costs no lookup per batch. That is the bound on revocation: a
 * key revoked on another server instance may be accepted for at most 5 s; on the instance
 * that revokes it (revokeKey clears the cache), it fails at its next request. Keys that fail
 * are never cached, so the ingest lookup budgets still count every database lookup of them.
 *
 * The organization's network detail policy and mask settings come with the key, in the same
 * lookup and cache entry: a change applies to batches within those 5 s too.
 */
export async function resolveIngestKey(db: DbOrTx, key: string | null | undefined): Promise<IngestPrincipal> {
  const presented = key?.trim()
  if (!presented) throw new UnauthorizedError(MISSING_API_KEY)
  if (!presented.startsWith(TOKEN_PREFIXES.ingest) || presented.length > 200)
    throw new UnauthorizedError(INVALID_API_KEY)
  const tokenHash = hashToken(presented)
  const principal = await cachedCredential(`ingest:${tokenHash}`, async () => {
    const found = await findIngestCredential(db, tokenHash)
    return found
      ? {
          credentialId: found.id,
          organizationId: found.organizationId,
          networkPolicy: { mode: found.networkDetails, redactKeys: found.networkRedactKeys },
          mask: ingestMask(found.maskSelectors, found.maskPatterns),
        }
      : null
  })
  if (!principal) throw new UnauthorizedError(INVALID_API_KEY)
  touchCredential(db, principal.credentialId)
  return principal
}

function ingestMask(selectors: string[], patterns: string[]): IngestPrincipal['mask'] {
  if (selectors.length === 0 && patterns.length === 0) return null
  const rules = compileMaskRules({ selectors, patterns })
  return hasMaskRules(rules) ? { selectors, rules } : null
}
