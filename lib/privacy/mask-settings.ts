import { eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { organizations } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { recordAudit } from '@/lib/audit/record'
import { forgetCredentials } from '@/lib/credentials/credential-cache'
import { NotFoundError } from '@/lib/errors'
import { describeMaskPattern } from '@/lib/privacy/mask-patterns'
import { type MaskRuleInput, parseMaskRuleInput } from '@/lib/privacy/mask-rules'

/**
 * The organization's mask settings (docs/privacy.md#re-masking): selectors and patterns that
 * ingest applies to every batch from now on, and whose selectors the ingest answer hands to
 * the recorder. Owners change them (the dashboard checks the role; the Data API the
 * write:privacy scope, which only owners grant).
 */

export async function getMaskSettings(db: DbOrTx, organizationId: string): Promise<MaskRuleInput> {
  const [row] = await db
    .select({ selectors: organizations.maskSelectors, patterns: organizations.maskPatterns })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
  if (!row) throw new NotFoundError(`Organization not found: ${organizationId}`)
  return row
}

/**
 * Replaces the settings (`mode: 'replace'`) or adds to them (`'add'`, what a re-masking that
 * also updates the recorder does). Validated before the one update; audited with before and
 * after in the same transaction.
 */
export async function setMaskSettings(
  db: DbOrTx,
  actor: Actor,
  input: { selectors?: unknown; patterns?: unknown; mode?: 'replace' | 'add' },
): Promise<MaskRuleInput> {
  const given = parseMaskRuleInput(input)
  const changed = await db.transaction(async (tx) => {
    const [current] = await tx
      .select({ selectors: organizations.maskSelectors, patterns: organizations.maskPatterns })
      .from(organizations)
      .where(eq(organizations.id, actor.organizationId))
      .for('update')
    if (!current) throw new NotFoundError(`Organization not found: ${actor.organizationId}`)
    const next =
      input.mode === 'add'
        ? {
            selectors: [...new Set([...current.selectors, ...given.selectors])],
            patterns: [...new Set([...current.patterns, ...given.patterns])],
          }
        : {
            selectors: input.selectors === undefined ? current.selectors : given.selectors,
            patterns: input.patterns === undefined ? current.patterns : given.patterns,
          }
    // Added to what the organization has, the rules must still be within the bounds.
    if (input.mode === 'add') parseMaskRuleInput(next)
    const same =
      next.selectors.join('\n') === current.selectors.join('\n') &&
      next.patterns.join('\n') === current.patterns.join('\n')
    if (same) return null
    await tx
      .update(organizations)
      .set({ maskSelectors: next.selectors, maskPatterns: next.patterns })
      .where(eq(organizations.id, actor.organizationId))
    await recordAudit(tx, actor, {
      action: 'masking.changed',
      targetType: 'organization',
      targetId: actor.organizationId,
      // Literals are named by length only: a literal is often the secret being masked.
      metadata: { before: described(current), after: described(next) },
    })
    return next
  })
  if (!changed) return getMaskSettings(db, actor.organizationId)
  // Ingest reads the settings with its cached key: this instance applies them at once, others within 5 s.
  forgetCredentials()
  return changed
}

const described = (rules: MaskRuleInput) => ({
  selectors: rules.selectors,
  patterns: rules.patterns.map(describeMaskPattern),
})
