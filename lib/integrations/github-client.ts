import { Octokit } from '@octokit/rest'
import { getConfig } from '@/lib/config'
import { type CallOptions, type Classify, callProvider, parseRetryAfter } from './provider-call'

/** Quiet: a failed call is reported once, by the caller, without the SDK's own log lines. */
const silent = { debug() {}, info() {}, warn() {}, error() {} }

/** GitHub's REST API through Octokit, at GITHUB_API_URL (GitHub Enterprise Server has its own). */
function octokit(token: string, signal: AbortSignal): Octokit {
  return new Octokit({
    auth: token,
    baseUrl: getConfig().integrations.githubApiUrl,
    log: silent,
    request: { signal },
  })
}

const classify: Classify = (error) => {
  const e = error as { status?: unknown; response?: { headers?: Record<string, string | undefined> } }
  if (typeof e.status !== 'number' || !e.response) return { status: null, retryAfterSeconds: null }
  const headers = e.response.headers ?? {}
  // A secondary rate limit is a 403 with Retry-After; an exhausted primary one says remaining 0.
  const limited = headers['retry-after'] !== undefined || headers['x-ratelimit-remaining'] === '0'
  const status = e.status === 403 && limited ? 429 : e.status
  return { status, retryAfterSeconds: parseRetryAfter(headers['retry-after']) }
}

export interface Repository {
  owner: string
  repo: string
}

/**
 * `owner/repo` as GitHub allows them: one slash, letters, digits and `-` for the owner,
 * also `.` and `_` for the repository. Checked character by character (no pattern to backtrack).
 */
export function parseRepository(value: string): Repository | null {
  const slash = value.indexOf('/')
  if (slash <= 0 || slash !== value.lastIndexOf('/')) return null
  const owner = value.slice(0, slash)
  const repo = value.slice(slash + 1)
  const ownerOk = owner.length <= 39 && [...owner].every((c) => /[A-Za-z0-9-]/.test(c))
  const repoOk =
    repo.length > 0 &&
    repo.length <= 100 &&
    repo !== '.' &&
    repo !== '..' &&
    [...repo].every((c) => /[A-Za-z0-9._-]/.test(c))
  return ownerOk && repoOk ? { owner, repo } : null
}

/** Whether the token sees the repository, and whether it has Issues turned on. */
export function checkRepository(token: string, repository: Repository, options?: CallOptions) {
  return callProvider(
    async (signal) => {
      const { data } = await octokit(token, signal).rest.repos.get({
        owner: repository.owner,
        repo: repository.repo,
      })
      return { fullName: data.full_name, hasIssues: data.has_issues }
    },
    classify,
    'read',
    options,
  )
}

export function createGithubIssue(
  token: string,
  input: Repository & { title: string; body: string },
  options?: CallOptions,
) {
  return callProvider(
    async (signal) => {
      const { data } = await octokit(token, signal).rest.issues.create({ ...input })
      return { url: data.html_url, identifier: `#${data.number}` }
    },
    classify,
    'create',
    { successStatus: 201, ...options },
  )
}
