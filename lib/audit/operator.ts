import type { Actor } from '@/lib/actor'

/**
 * The installation's operator acting through the admin CLI: no member or credential is
 * signed in there, so the trail names the CLI (docs/privacy.md#audit-trail).
 */
export function operatorActor(organizationId: string): Actor {
  return { organizationId, actorType: 'system', actorId: 'cli' }
}
