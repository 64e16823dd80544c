import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * Local stand-ins for the Linear GraphQL API and the GitHub REST API, so the official SDKs run
 * unchanged against them (LINEAR_API_URL, GITHUB_API_URL). Each can be told to fail the next
 * requests: 401, 429 with a Retry-After, 500, no answer at all, an error after acting, or a
 * GraphQL refusal. Each request's Authorization header is recorded, so tests can look for the
 * credential wherever it must not appear.
 */
export type Fault =
  | { kind: 'unauthorized' }
  | { kind: 'rate_limited'; retryAfter: number }
  | { kind: 'server_error' }
  | { kind: 'hang' }
  /** The request is acted on (an issue is created), then answered with this 5xx. */
  | { kind: 'created_then_error'; status: number }
  /** A GraphQL answer declining the request: HTTP 200 (or 400) with an `invalid input` error. */
  | { kind: 'invalid_input'; status: 200 | 400 }
  /** Linear: HTTP 200 and `issueCreate { success: false }`. */
  | { kind: 'not_created' }

export interface Received {
  method: string
  path: string
  authorization: string | undefined
  body: Record<string, unknown> | null
}

export interface TrackerFake {
  url: string
  /** Every request, in order. */
  received: Received[]
  /** The issues created, in order. */
  created: { title: string; body: string }[]
  /** Fails the next requests with these faults, one each. */
  failNext(...faults: Fault[]): void
  /** Holds each successful creation this long before answering (concurrency tests). */
  delayCreateMs: number
  close(): Promise<void>
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  return text ? (JSON.parse(text) as Record<string, unknown>) : null
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
  res.end(JSON.stringify(body))
}

type Handler = (req: Received, fake: TrackerFake) => Promise<{ status: number; body: unknown }>

async function startFake(path: string, handle: Handler, faultBody: (status: number) => unknown) {
  const faults: Fault[] = []
  const held: ServerResponse[] = []
  const fake = {
    url: '',
    received: [] as Received[],
    created: [] as { title: string; body: string }[],
    delayCreateMs: 0,
    failNext: (...next: Fault[]) => void faults.push(...next),
    close: async () => {},
  } satisfies TrackerFake
  const server: Server = createServer((req, res) => {
    void (async () => {
      const received: Received = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        authorization: req.headers.authorization,
        body: await readJson(req),
      }
      fake.received.push(received)
      const fault = faults.shift()
      if (fault?.kind === 'hang') return void held.push(res)
      if (fault?.kind === 'unauthorized') return send(res, 401, faultBody(401))
      if (fault?.kind === 'server_error') return send(res, 500, faultBody(500))
      if (fault?.kind === 'rate_limited')
        return send(res, 429, faultBody(429), { 'retry-after': String(fault.retryAfter) })
      if (fault?.kind === 'invalid_input')
        return send(res, fault.status, {
          errors: [{ message: 'Argument Validation Error', extensions: { type: 'invalid input' } }],
        })
      if (fault?.kind === 'not_created')
        return send(res, 200, { data: { issueCreate: { success: false, issue: null } } })
      const answer = await handle(received, fake)
      if (fault?.kind === 'created_then_error') return send(res, fault.status, faultBody(fault.status))
      send(res, answer.status, answer.body)
    })().catch((error: unknown) => send(res, 500, { error: String(error) }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`
  fake.close = () => {
    for (const res of held) res.destroy()
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return fake
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const LINEAR_TEAM = { id: '5f0c3a52-7d1e-4b8a-9a51-0c2f1f7b9e11', key: 'ENG', name: 'Engineering' }

/** Linear's GraphQL endpoint: the team lookup and issueCreate the service sends. */
export function startLinearFake(apiKey: string): Promise<TrackerFake> {
  return startFake(
    '/graphql',
    async (req, fake) => {
      if (req.authorization !== apiKey)
        return { status: 401, body: { errors: [{ message: 'Authentication required, not authenticated' }] } }
      const query = String(req.body?.query ?? '')
      const variables = (req.body?.variables ?? {}) as Record<string, Record<string, Record<string, unknown>>>
      if (query.includes('teams(')) {
        const filter = variables.filter ?? {}
        const wanted = (filter.key?.eq ?? filter.id?.eq) as string | undefined
        const match = wanted === LINEAR_TEAM.key || wanted === LINEAR_TEAM.id
        return { status: 200, body: { data: { teams: { nodes: match ? [LINEAR_TEAM] : [] } } } }
      }
      if (query.includes('issueCreate(')) {
        if (fake.delayCreateMs) await sleep(fake.delayCreateMs)
        const input = variables.input as unknown as { title: string; description: string; teamId: string }
        fake.created.push({ title: input.title, body: input.description })
        const identifier = `ENG-${41 + fake.created.length}`
        return {
          status: 200,
          body: {
            data: {
              issueCreate: {
                success: true,
                issue: {
                  id: `id-${identifier}`,
                  identifier,
                  url: `https://linear.app/acme/issue/${identifier}`,
                },
              },
            },
          },
        }
      }
      return { status: 400, body: { errors: [{ message: 'Unknown operation' }] } }
    },
    (status) => ({ errors: [{ message: status === 401 ? 'Authentication required' : `HTTP ${status}` }] }),
  )
}

/** GitHub's REST API: GET /repos/{owner}/{repo} and POST /repos/{owner}/{repo}/issues. */
export function startGithubFake(token: string, repository = 'acme/shop'): Promise<TrackerFake> {
  return startFake(
    '',
    async (req, fake) => {
      if (req.authorization !== `token ${token}`) return { status: 401, body: { message: 'Bad credentials' } }
      if (req.method === 'GET' && req.path === `/repos/${repository}`)
        return { status: 200, body: { full_name: repository, has_issues: true } }
      if (req.method === 'POST' && req.path === `/repos/${repository}/issues`) {
        if (fake.delayCreateMs) await sleep(fake.delayCreateMs)
        const body = req.body as { title: string; body: string }
        fake.created.push({ title: body.title, body: body.body })
        const number = 11 + fake.created.length
        return {
          status: 201,
          body: { number, html_url: `https://github.com/${repository}/issues/${number}` },
        }
      }
      return { status: 404, body: { message: 'Not Found' } }
    },
    (status) => ({ message: status === 401 ? 'Bad credentials' : `HTTP ${status}` }),
  )
}
