import { eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { type NetworkDetailPolicy, organizations } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { operatorActor } from '@/lib/audit/operator'
import { recordAudit } from '@/lib/audit/record'
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
  input: {
    organizationId: string
    policy?: string
    redactKeys?: string
    /** Who the audit trail names (`masking.changed`); by default the admin CLI. */
    actor?: Actor
  },
): Promise<NetworkPolicySetting> {
  const policy = input.policy === undefined ? undefined : parsePolicy(input.policy)
  const keys = input.redactKeys === undefined ? undefined : parseRedactKeys(input.redactKeys)
  const missing = new NotFoundError(`Organization not found: ${input.organizationId}`)
  if (!isUuid(input.organizationId)) throw missing
  if (policy === undefined && keys === undefined) return getNetworkPolicy(db, input.organizationId)
  const organizationId = input.organizationId
  const row = await db.transaction(async (tx) => {
    const [before] = await tx
      .select({ networkDetails: organizations.networkDetails, keys: organizations.networkRedactKeys })
      .from(organizations)
      .where(eq(organizations.id, organizationId))
      .for('update')
    if (!before) throw missing
    const [after] = await tx
      .update(organizations)
      .set({
        ...(policy === undefined ? {} : { networkDetails: policy }),
        ...(keys === undefined ? {} : { networkRedactKeys: keys }),
      })
      .where(eq(organizations.id, organizationId))
      .returning({
        id: organizations.id,
        networkDetails: organizations.networkDetails,
        networkRedactKeys: organizations.networkRedactKeys,
      })
    const keysChanged = after!.networkRedactKeys.join('\n') !== before.keys.join('\n')
    if (after!.networkDetails !== before.networkDetails || keysChanged)
      await recordAudit(tx, input.actor ?? operatorActor(organizationId), {
        action: 'masking.changed',
        targetType: 'organization',
        targetId: organizationId,
        metadata: {
          setting: 'network_details',
          from: { policy: before.networkDetails, redactKeys: before.keys },
          to: { policy: after!.networkDetails, redactKeys: after!.networkRedactKeys },
        },
      })
    return after!
  })
  // Ingest reads the policy with its cached key: this instance applies the change at once,
  // others within the cache's 5 s.
  forgetCredentials()
  return row
}
