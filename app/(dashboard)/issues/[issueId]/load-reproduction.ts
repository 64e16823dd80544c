import type { DbOrTx } from '@/db/client'
import { logger } from '@/lib/log'
import { getIssueReproduction } from '@/lib/reproduction/get-reproduction'
import type { Reproduction } from '@/lib/reproduction/views'

/**
 * The Reproduction card's content, or null when it could not be built: the test is generated
 * from attacker-written trails on every view, and a failure there must cost only that card,
 * not the whole issue page.
 */
export async function loadReproduction(
  db: DbOrTx,
  organizationId: string,
  issueId: string,
): Promise<Reproduction | null> {
  try {
    return await getIssueReproduction(db, { organizationId }, issueId)
  } catch (error) {
    logger.error({ err: error, organizationId, issueId }, 'building the issue reproduction failed')
    return null
  }
}
