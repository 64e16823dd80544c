import type { Agent } from 'node:http'
import type { Visitor } from './capacity-visitors'
import { send } from './load-traffic'

/**
 * Whether each visitor who left is listed by the Data API as processed with its issues, and
 * how long after its final batch was accepted: `GET /api/v1/sessions?q=user.id = a or ...`
 * (each visitor's user id is its session id), oldest first, a few queries every 2 s. This is
 * what an agent or a developer waiting for a session sees, not a database peek, so it works on
 * PGlite (inside the server) as on Postgres.
 */

const POLL_MS = 2_000
// The search language allows 32 conditions and 1,000 characters a query.
const IDS_PER_QUERY = 24
const QUERIES_PER_POLL = 8
// How the reason of a session stopped by the analysis budget begins (a hostile visitor may).
const FAILED_IS_FINE_FOR_HOSTILE = 'failed'

interface Waiting {
  organization: number
  endedAt: number
  expectedIssues: number
  hostile: boolean
}

export interface Confirmed {
  /** From the final batch's 200 to the first poll that saw the session processed, ms. */
  latencyMs: number
  at: number
}

interface ListedSession {
  status: string
  issueCount: number
  user: { userId: string | null }
}

export class Confirmations {
  readonly waiting = new Map<string, Waiting>()
  readonly confirmed: Confirmed[] = []
  /** Sessions processed with fewer issues than their page views file. */
  readonly missingIssues: string[] = []
  readonly failures: string[] = []
  queries = 0
  /** The last answer of a look-up, for the report when visitors stay unlisted. */
  lastAnswer = ''
  private timer: NodeJS.Timeout | undefined
  private polling = false
  private turn = 0

  constructor(
    private readonly options: {
      agent: Agent
      baseUrl: string
      /** Data API keys per organization, used in turn (300 reads a minute each). */
      apiKeys: string[][]
    },
  ) {}

  add(visitor: Visitor, organization: number): void {
    this.waiting.set(visitor.externalId, {
      organization,
      endedAt: visitor.endedAt ?? Date.now(),
      expectedIssues: visitor.expectedIssues,
      hostile: visitor.hostile,
    })
  }

  start(): void {
    this.timer = setInterval(() => void this.poll(), POLL_MS)
  }

  stop(): void {
    clearInterval(this.timer)
  }

  /** The longest any waiting visitor has waited so far, ms (0 when none waits). */
  oldestWaitMs(now = Date.now()): number {
    let oldest = 0
    for (const waiting of this.waiting.values()) oldest = Math.max(oldest, now - waiting.endedAt)
    return oldest
  }

  private async poll(): Promise<void> {
    if (this.polling) return
    this.polling = true
    try {
      const byOrganization = new Map<number, string[]>()
      // Map order is insertion order: the oldest leavers first.
      for (const [id, waiting] of this.waiting) {
        const ids = byOrganization.get(waiting.organization) ?? []
        ids.push(id)
        byOrganization.set(waiting.organization, ids)
      }
      const queries: { organization: number; ids: string[] }[] = []
      for (const [organization, ids] of byOrganization)
        for (let i = 0; i < ids.length && queries.length < QUERIES_PER_POLL * 4; i += IDS_PER_QUERY)
          queries.push({ organization, ids: ids.slice(i, i + IDS_PER_QUERY) })
      // Oldest chunks of every organization first, within this poll's budget.
      queries.sort((a, b) => this.waiting.get(a.ids[0]!)!.endedAt - this.waiting.get(b.ids[0]!)!.endedAt)
      await Promise.all(queries.slice(0, QUERIES_PER_POLL).map((query) => this.check(query)))
    } finally {
      this.polling = false
    }
  }

  private async check(query: { organization: number; ids: string[] }): Promise<void> {
    const keys = this.options.apiKeys[query.organization]!
    const key = keys[this.turn++ % keys.length]!
    const q = query.ids.map((id) => `user.id = ${id}`).join(' or ')
    const path = `/api/v1/sessions?limit=${IDS_PER_QUERY}&q=${encodeURIComponent(q)}`
    this.queries++
    let answer: { status: number; body: string }
    try {
      answer = await send(this.options.agent, this.options.baseUrl, {
        method: 'GET',
        path,
        headers: { authorization: `Bearer ${key}` },
      })
    } catch (error) {
      this.failures.push(`sessions query: ${error instanceof Error ? error.message : String(error)}`)
      return
    }
    if (answer.status !== 200) {
      if (this.failures.length < 20)
        this.failures.push(`sessions query: ${answer.status} ${answer.body.slice(0, 200)}`)
      return
    }
    this.lastAnswer = `${path.slice(0, 200)} => ${answer.body.slice(0, 600)}`
    const now = Date.now()
    const { sessions } = JSON.parse(answer.body) as { sessions: ListedSession[] }
    for (const session of sessions) {
      const id = session.user.userId
      const waiting = id ? this.waiting.get(id) : undefined
      if (!id || !waiting) continue
      const processed =
        session.status === 'processed' || (waiting.hostile && session.status === FAILED_IS_FINE_FOR_HOSTILE)
      if (!processed) continue
      if (!waiting.hostile && session.issueCount < waiting.expectedIssues)
        this.missingIssues.push(`${id}: ${session.issueCount} of ${waiting.expectedIssues} issues`)
      this.confirmed.push({ latencyMs: now - waiting.endedAt, at: now })
      this.waiting.delete(id)
    }
  }
}
