import { MockLanguageModelV3 } from 'ai/test'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alertMessages, alertRuleEvents, insights, outbox } from '@/db/schema'
import { runAdminCli } from '@/inngest/cli'
import { setLanguageModelForTests } from '@/lib/ai/model'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { useDatabase } from '@/lib/db'
import { lastInterval } from '@/lib/insights/generate'
import { issueEventData } from '@/lib/issues/event-data'
import { appJobsEngine } from '@/lib/jobs/app-engine'
import { createOrganization } from '@/lib/orgs/create-organization'
import { commitWithEvents } from '@/lib/outbox/commit'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { type SlackReceiver, seedRule, seedSlackIntegration, startSlackReceiver } from '../helpers/alerts'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { seedIssue } from '../helpers/seed'
import { seedSession } from '../helpers/sessions'

/**
 * `admin jobs:run` runs the one job list both engines serve: an event it sweeps from the
 * outbox starts the same jobs it starts on a server, with the configured model.
 */
let database: TestDatabase
let receiver: SlackReceiver

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  receiver = await startSlackReceiver()
  setConfigForTests(parseConfig({ ...process.env, SLACK_WEBHOOK_HOSTS: receiver.host }))
})
afterAll(async () => {
  setLanguageModelForTests(undefined)
  setConfigForTests(undefined)
  useDatabase(undefined)
  await receiver?.close()
  await database?.close()
})

async function jobsRun(...options: string[]) {
  const stdout: string[] = []
  const stderr: string[] = []
  const code = await runAdminCli(['jobs:run', ...options, '--json'], {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: {},
    database,
  })
  expect({ code, stderr }).toEqual({ code: 0, stderr: [] })
  return JSON.parse(stdout.join('\n')) as {
    finalized: number
    insights: number
    deliveries: number
    completed: Record<string, number>
    failed: Record<string, number>
    waiting: Record<string, number>
  }
}

describe('admin jobs:run', () => {
  it('evaluates alert rules for an event it sweeps from the outbox, and the rule fires', async () => {
    const org = await createOrganization(database.db, { name: 'Swept' })
    const integration = await seedSlackIntegration(
      database.db,
      org.id,
      `http://${receiver.host}/services/cli`,
    )
    const rule = await seedRule(database.db, {
      organizationId: org.id,
      name: 'New issues',
      trigger: 'issue_created',
      integrationId: integration.id,
    })
    const issue = await seedIssue(database.db, org.id, { title: 'Checkout breaks on Pay' })
    // No engine in this process: the event waits in the outbox, as after a crash or on a
    // server whose engine does not run.
    expect(appJobsEngine()).toBeUndefined()
    await commitWithEvents(database.db, async (tx) => {
      await enqueueEvent(tx, {
        organizationId: org.id,
        name: EVENTS.issueCreated,
        payload: await issueEventData(tx, issue.id),
      })
    })

    const report = await jobsRun('--finalize')

    expect(report.failed).toEqual({})
    expect(report.completed['alerts-evaluate-issue-created']).toBe(1)
    expect(report.completed['webhook-fan-out-issue-created']).toBe(1)
    const events = await database.db.select().from(alertRuleEvents).where(eq(alertRuleEvents.ruleId, rule.id))
    expect(events).toMatchObject([{ decision: 'sent', issueId: issue.id }])
    const messages = await database.db.select().from(alertMessages).where(eq(alertMessages.ruleId, rule.id))
    expect(messages).toHaveLength(1)
    const sent = receiver.received.filter((r) => r.path === '/services/cli')
    expect(sent).toHaveLength(1)
    expect(JSON.stringify(sent[0]!.body)).toContain('Checkout breaks on Pay')
    const left = await database.db.select().from(outbox).where(eq(outbox.organizationId, org.id))
    expect(left.every((row) => row.dispatchedAt !== null)).toBe(true)
  })

  it('writes insights with the configured model', async () => {
    const text = 'Sessions held steady (written by the model).'
    setLanguageModelForTests(
      new MockLanguageModelV3({
        doGenerate: async () => ({
          content: [{ type: 'text', text }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 10, text: 10, reasoning: undefined },
          },
          warnings: [],
        }),
      }),
    )
    const org = await createOrganization(database.db, { name: 'Modelled' })
    const interval = lastInterval(Date.now(), parseConfig(process.env).insights.intervalHours)
    await seedSession(database.db, org.id, { createdAt: new Date(interval.start.getTime() + 60_000) })

    const report = await jobsRun('--insights')

    expect(report.completed['generate-insights']).toBe(1)
    // The figures the command answered before it ran the job list are still there.
    expect(report).toMatchObject({ finalized: 0, deliveries: 0 })
    expect(report.insights).toBeGreaterThanOrEqual(1)
    // Without an option it asks for the three groups it always ran; never the retention sweep,
    // which deletes data.
    expect((await jobsRun()).completed['retention-sweep']).toBeUndefined()
    // The insight's event starts its jobs in the same run.
    expect(report.completed['alerts-evaluate-insight-generated']).toBe(1)
    const [insight] = await database.db.select().from(insights).where(eq(insights.organizationId, org.id))
    expect(insight?.content).toBe(text)
  })
})
