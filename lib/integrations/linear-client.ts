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

const classify: Classify = (error) => {
  if (!(error instanceof LinearError)) return { status: null, retryAfterSeconds: null }
  const raw = error.raw as { response?: { headers?: Headers } } | undefined
  const retryAfterSeconds = parseRetryAfter(raw?.response?.headers?.get?.('retry-after'))
  // Linear answers a bad key with 400 and an "authentication error" in the body.
  if (error.type === LinearErrorType.AuthenticationError) return { status: 401, retryAfterSeconds }
  if (error.type === LinearErrorType.Ratelimited) return { status: 429, retryAfterSeconds }
  return { status: error.status ?? null, retryAfterSeconds }
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
      if (!answer.data?.issueCreate.success || !issue) throw new Error('Linear did not create the issue')
      return { url: issue.url, identifier: issue.identifier } satisfies CreatedTicket
    },
    classify,
    options,
  )
}
