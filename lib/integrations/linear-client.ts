import { LinearClient, LinearError, LinearErrorType } from '@linear/sdk'
import { getConfig } from '@/lib/config'
import { isUuid } from '@/lib/errors'
import { type CallOptions, type Classify, callProvider, parseRetryAfter } from './provider-call'

/**
 * Linear through its official SDK, pointed at LINEAR_API_URL. The two operations are written
 * out (the SDK's `rawRequest`) so each is one round trip that asks only for what is stored:
 * the SDK's model methods fetch a created issue's identifier with a second query, and a
 * ticket must not exist on Linear's side without the service knowing its address.
 */
function linearClient(apiKey: string, signal: AbortSignal): LinearClient {
  return new LinearClient({ apiKey, apiUrl: getConfig().integrations.linearApiUrl, signal })
}

/** Linear answered, but without the issue (`success: false`): it declined, nothing was created. */
export class LinearRefusedError extends Error {
  constructor() {
    super('Linear did not create the issue')
  }
}

/** GraphQL error types that mean Linear read the request and declined it. */
const REFUSALS: ReadonlySet<string> = new Set([
  LinearErrorType.InvalidInput,
  LinearErrorType.GraphqlError,
  LinearErrorType.UsageLimitExceeded,
  LinearErrorType.Other,
  LinearErrorType.Unknown,
])

const classify: Classify = (error) => {
  if (error instanceof LinearRefusedError) return { status: 200, retryAfterSeconds: null, refused: true }
  if (!(error instanceof LinearError)) return { status: null, retryAfterSeconds: null }
  const raw = error.raw as { response?: { headers?: Headers } } | undefined
  const retryAfterSeconds = parseRetryAfter(raw?.response?.headers?.get?.('retry-after'))
  // Linear answers a bad key with 400 and an "authentication error" in the body.
  if (error.type === LinearErrorType.AuthenticationError || error.status === 401)
    return { status: 401, retryAfterSeconds }
  if (error.type === LinearErrorType.Ratelimited || error.status === 429)
    return { status: 429, retryAfterSeconds }
  if (
    error.type === LinearErrorType.Forbidden ||
    error.type === LinearErrorType.FeatureNotAccessible ||
    error.status === 403
  )
    return { status: 403, retryAfterSeconds }
  const status = error.status ?? null
  if (status !== null && status >= 500) return { status, retryAfterSeconds }
  // A GraphQL error (on HTTP 200 or 400) is Linear reading the request and declining it.
  if (status === 400 || (status !== null && error.type !== undefined && REFUSALS.has(error.type)))
    return { status, retryAfterSeconds, refused: true }
  return { status, retryAfterSeconds }
}

export interface LinearTeam {
  teamId: string
  teamKey: string
  teamName: string
}

const TEAM_QUERY = `query ServiceReplayTeam($filter: TeamFilter) {
  teams(filter: $filter, first: 1) { nodes { id key name } }
}`

/** The team named by its key (`ENG`) or id; null when the key cannot see such a team. */
export function findLinearTeam(apiKey: string, team: string, options?: CallOptions) {
  const filter = isUuid(team) ? { id: { eq: team } } : { key: { eq: team.toUpperCase() } }
  return callProvider(
    async (signal) => {
      const answer = await linearClient(apiKey, signal).client.rawRequest<
        { teams: { nodes: { id: string; key: string; name: string }[] } },
        { filter: typeof filter }
      >(TEAM_QUERY, { filter })
      const found = answer.data?.teams.nodes[0]
      return found
        ? ({ teamId: found.id, teamKey: found.key, teamName: found.name } satisfies LinearTeam)
        : null
    },
    classify,
    'read',
    options,
  )
}

const CREATE_MUTATION = `mutation ServiceReplayIssueCreate($input: IssueCreateInput!) {
  issueCreate(input: $input) { success issue { id identifier url } }
}`

export interface CreatedTicket {
  url: string
  identifier: string
}

export function createLinearIssue(
  apiKey: string,
  input: { teamId: string; title: string; description: string },
  options?: CallOptions,
) {
  return callProvider(
    async (signal) => {
      const answer = await linearClient(apiKey, signal).client.rawRequest<
        { issueCreate: { success: boolean; issue: { id: string; identifier: string; url: string } | null } },
        { input: typeof input }
      >(CREATE_MUTATION, { input })
      const issue = answer.data?.issueCreate.issue
      if (!answer.data?.issueCreate.success || !issue) throw new LinearRefusedError()
      return { url: issue.url, identifier: issue.identifier } satisfies CreatedTicket
    },
    classify,
    'create',
    options,
  )
}
