import { sql } from 'drizzle-orm'
import type { PipelinedTransaction } from '@/db/pipelined-transaction'
import type { TokenConfig } from './issue-tokens'
import type { LockedGrant } from './lock-refresh-grant'

export interface RotationInput {
  grant: LockedGrant
  /** Every check that needs no database passed: live, consent in force, scope, resource. */
  allowed: boolean
  graceSeconds: number
  accessTokenHash: string
  refreshTokenHash: string
  accessScope: string
}

export interface RotationOutcome {
  /** The user is still a member of the chain's organization. */
  member: boolean
  /** A rotated token outside the grace window: the chain was revoked by this statement. */
  reuse: boolean
  /** The presented token was rotated (or is the one in grace) and the new pair inserted. */
  issued: boolean
}

/**
 * The refresh grant's writes as one statement, run after lockRefreshGrant in the same
 * transaction. Being a new statement it reads with a new snapshot, taken once the locks
 * are held, so it sees what a concurrent member removal or rotation of this chain committed:
 *
 * - `member`: the user still belongs to the chain's organization (the organization's KEY
 *   SHARE lock made a concurrent removal either commit first or wait for us);
 * - `in_grace`: the token was rotated within OAUTH_REFRESH_REUSE_GRACE_SECONDS and is the
 *   chain's latest rotation (docs/design/oauth-mcp.md decision 10); the wall clock, not now(),
 *   which is when the transaction began;
 * - reuse (rotated and not in grace) revokes the chain and every token in it;
 * - otherwise, when every other check passed, the presented token is rotated with a
 *   compare-and-swap on `rotated_at` (unless it is the one in grace) and the new access
 *   and refresh tokens are inserted, only if that swap succeeded.
 *
 * Data-modifying CTEs always run, each guarded by the verdict, and see one snapshot; none
 * of them touches a row another one does in the same outcome. It is the transaction's last
 * statement and COMMIT is sent with it: every outcome that must not be kept (expired, grant
 * revoked, scope or resource refused) writes nothing here, so committing it is harmless.
 */
export async function rotateRefreshToken(
  tx: PipelinedTransaction,
  input: RotationInput,
  config: TokenConfig,
): Promise<RotationOutcome> {
  const { grant } = input
  const reused = grant.reused
  const [row] = await tx.commitWith(sql`
      with state as (
        select exists(select 1 from memberships m
            where m.user_id = ${grant.userId} and m.organization_id = ${grant.organizationId}) as member,
          coalesce(${reused}::boolean and ${input.graceSeconds}::int > 0
            and t.rotated_at > clock_timestamp() - (${input.graceSeconds}::int * interval '1 second')
            and t.rotated_at = (select max(r.rotated_at) from oauth_refresh_tokens r
              where r.chain_id = t.chain_id), false) as in_grace
        from oauth_refresh_tokens t where t.id = ${grant.tokenId}
      ),
      verdict as (
        select member, ${reused}::boolean and not in_grace as reuse,
          (not ${reused}::boolean or in_grace) and ${input.allowed}::boolean and member as go
        from state
      ),
      revoked_chain as (
        update oauth_token_chains set revoked_at = now()
        where id = ${grant.chainId} and revoked_at is null and (select reuse from verdict)
        returning id
      ),
      revoked_access as (
        update oauth_access_tokens set revoked_at = now()
        where chain_id = ${grant.chainId} and revoked_at is null and (select reuse from verdict)
        returning id
      ),
      revoked_refresh as (
        update oauth_refresh_tokens set revoked_at = now()
        where chain_id = ${grant.chainId} and revoked_at is null and (select reuse from verdict)
        returning id
      ),
      rotated as (
        update oauth_refresh_tokens set rotated_at = now()
        where id = ${grant.tokenId} and rotated_at is null and not ${reused}::boolean
          and (select go from verdict)
        returning id
      ),
      issue as (
        select 1 as one from verdict where go and (${reused}::boolean or exists(select 1 from rotated))
      ),
      new_access as (
        insert into oauth_access_tokens (token_hash, chain_id, client_id, organization_id, scope, resource, expires_at)
        select ${input.accessTokenHash}, ${grant.chainId}, ${grant.chainClientId}, ${grant.organizationId},
          ${input.accessScope}, ${grant.resource}, now() + (${config.accessTokenTtlSeconds}::int * interval '1 second')
        from issue
        returning id
      ),
      new_refresh as (
        insert into oauth_refresh_tokens (token_hash, chain_id, scope, expires_at)
        select ${input.refreshTokenHash}, ${grant.chainId}, ${grant.tokenScope},
          now() + (${config.refreshTokenTtlDays * 86_400}::int * interval '1 second')
        from issue
        returning id
      )
      select member, reuse,
        exists(select 1 from new_access) and exists(select 1 from new_refresh) as issued
      from verdict`)
  return { member: row?.member === true, reuse: row?.reuse === true, issued: row?.issued === true }
}
