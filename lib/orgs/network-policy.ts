import { eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { type NetworkDetailPolicy, organizations } from '@/db/schema'
import { forgetCredentials } from '@/lib/credentials/credential-cache'
import { isUuid, NotFoundError } from '@/lib/errors'
import { parsePolicy, parseRedactKeys } from './network-policy-input'

/**
 * What ingest does with the network details the recorder captures (docs/network-details.md):
 * `redact` redacts them again on the server (the built-in JSON key words plus the
 * organization's own), `drop` removes every header and body before a batch is stored. Owners
 * change it in Settings; `npm run admin -- org:network-details` does the same.
 */

export interface NetworkPolicySetting {
  id: string
  networkDetails: NetworkDetailPolicy
  /** Lower-cased, unique, in the order given. */
  networkRedactKeys: string[]
}

export async function getNetworkPolicy(db: DbOrTx, organizationId: string): Promise<NetworkPolicySetting> {
  const missing = new NotFoundError(`Organization not found: ${organizationId}`)
  if (!isUuid(organizationId)) throw missing
  const [row] = await db
    .select({
      id: organizations.id,
      networkDetails: organizations.networkDetails,
      networkRedactKeys: organizations.networkRedactKeys,
    })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
  if (!row) throw missing
  return row
}

/**
 * Sets the policy and, when given, replaces the extra key words (a comma or newline separated
 * text, parseRedactKeys). Everything is validated before the one update, so bad input changes
 * nothing.
 */
export async function setNetworkPolicy(
  db: DbOrTx,
  input: { organizationId: string; policy?: string; redactKeys?: string },
): Promise<NetworkPolicySetting> {
  const policy = input.policy === undefined ? undefined : parsePolicy(input.policy)
  const keys = input.redactKeys === undefined ? undefined : parseRedactKeys(input.redactKeys)
  const missing = new NotFoundError(`Organization not found: ${input.organizationId}`)
  if (!isUuid(input.organizationId)) throw missing
  if (policy === undefined && keys === undefined) return getNetworkPolicy(db, input.organizationId)
  const [row] = await db
    .update(organizations)
    .set({
      ...(policy === undefined ? {} : { networkDetails: policy }),
      ...(keys === undefined ? {} : { networkRedactKeys: keys }),
    })
    .where(eq(organizations.id, input.organizationId))
    .returning({
      id: organizations.id,
      networkDetails: organizations.networkDetails,
      networkRedactKeys: organizations.networkRedactKeys,
    })
  if (!row) throw missing
  // Ingest reads the policy with its cached key: this instance applies the change at once,
  // others within the cache's 5 s.
  forgetCredentials()
  return row
}
