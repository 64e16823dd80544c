import type { Db } from '@/db/client'
import { oauthTokenChains } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { setOrganizationPlan } from '@/lib/orgs/set-plan'
import { createEndpoint } from '@/lib/webhooks/endpoints'
import { type RefreshCredential, seedOAuth } from './oauth-seed'

/**
 * The one organization of the soak run, written before the server starts: seedOAuth's
 * organization (members, consents and one refresh token per OAuth client, bound to the MCP
 * resource) moved to the paid plan, with enough keys of each kind that no stream reaches a
 * per-key limit, and one webhook endpoint for issue.created on the local receiver.
 */

export interface SoakSeed {
  organizationId: string
  ingestKeys: string[]
  apiKeys: string[]
  mcpKeys: string[]
  /** The key the throttled stream spends past its budget on purpose. */
  throttledKey: string
  refreshTokens: RefreshCredential[]
  endpointUrl: string
}

export async function seedSoak(
  db: Db,
  options: {
    resource: string
    endpointUrl: string
    ingestKeys: number
    apiKeys: number
    mcpKeys: number
    oauthClients: number
  },
): Promise<SoakSeed> {
  // One chain per client: the limiter counts OAuth calls per client, so clients (not tokens)
  // are what spreads the MCP stream over several budgets.
  const oauth = await seedOAuth(db, {
    chains: options.oauthClients,
    users: 1,
    clients: options.oauthClients,
    resource: options.resource,
  })
  // seedOAuth does not return the organization it made; its chains (the only ones) name it.
  const [chain] = await db
    .select({ organizationId: oauthTokenChains.organizationId })
    .from(oauthTokenChains)
    .limit(1)
  if (!chain) throw new Error('seedOAuth wrote no token chain')
  const { organizationId } = chain
  await setOrganizationPlan(db, { organizationId, plan: 'paid' })
  const keys = async (type: 'ingest' | 'api' | 'mcp', count: number) => {
    const created: string[] = []
    for (let i = 0; i < count; i++)
      created.push((await createKey(db, { organizationId, type, name: `soak ${type} ${i}` })).key)
    return created
  }
  const ingestKeys = await keys('ingest', options.ingestKeys)
  const apiKeys = await keys('api', options.apiKeys)
  const mcpKeys = await keys('mcp', options.mcpKeys)
  const [throttledKey] = await keys('api', 1)
  await createEndpoint(db, {
    organizationId,
    name: 'soak receiver',
    url: options.endpointUrl,
    events: ['issue.created'],
  })
  return {
    organizationId,
    ingestKeys,
    apiKeys,
    mcpKeys,
    throttledKey: throttledKey!,
    refreshTokens: oauth.refreshTokens,
    endpointUrl: options.endpointUrl,
  }
}
