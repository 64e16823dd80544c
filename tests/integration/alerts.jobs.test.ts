import { InngestTestEngine } from '@inngest/test'
import type { Inngest } from 'inngest'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { buildJobDefinitions } from '@/inngest/app'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { useDatabase } from '@/lib/db'
import { issueEventData } from '@/lib/issues/event-data'
import { createJobsEngine, type JobDefinition, type JobsEngine } from '@/lib/jobs'
import { setAppJobsEngine } from '@/lib/jobs/app-engine'
import { createInngestClient, createInngestEngine, toInngestFunction } from '@/lib/jobs/inngest'
import { createOrganization } from '@/lib/orgs/create-organization'
import { commitWithEvents } from '@/lib/outbox/commit'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { type SlackReceiver, seedRule, seedSlackIntegration, startSlackReceiver } from '../helpers/alerts'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { seedIssue } from '../helpers/seed'
import { waitFor } from '../helpers/wait'

/** The alert jobs are registered: an issue/created event reaches Slack through either engine, with no test calling the domain. */
let database: TestDatabase
let receiver: SlackReceiver
let definitions: JobDefinition[]
let engine: JobsEngine | undefined

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  receiver = await startSlackReceiver()
  const config = parseConfig({
    ...process.env,
    SLACK_WEBHOOK_HOSTS: receiver.host,
    FINALIZER_INTERVAL_SECONDS: '3600',
  })
  setConfigForTests(config)
  definitions = buildJobDefinitions(config)
})
afterEach(async () => {
  await engine?.stop()
  engine = undefined
  setAppJobsEngine(undefined)
})
afterAll(async () => {
  setConfigForTests(undefined)
  useDatabase(undefined)
  await receiver?.close()
  await database?.close()
})

/** Stands in for the Inngest server: each event sent runs the functions it triggers. */
function inngestThatRuns(all: JobDefinition[]): Inngest {
  const client = createInngestClient({ kind: 'inngest', dev: true })
  const send = async (events: { name: string; data: Record<string, unknown>; id?: string }[]) => {
    for (const event of events)
      for (const def of all)
        if ('event' in def.trigger && def.trigger.event === event.name)
          void new InngestTestEngine({ function: toInngestFunction(def, client) }).execute({
            events: [{ name: event.name, data: event.data, id: event.id, ts: Date.now() }],
          })
    return { ids: events.map((e) => e.id ?? '') }
  }
  return { send } as unknown as Inngest
}

const engines = {
  'in-process': () =>
    createJobsEngine({ kind: 'in-process' }, definitions, { inProcess: { pollIntervalMs: 3_600_000 } }),
  inngest: () => createInngestEngine(inngestThatRuns(definitions)),
}

describe('alert jobs', () => {
  it('lists the evaluation, digest and Slack sweep jobs', () => {
    const ids = definitions.map((d) => d.id)
    expect(ids).toEqual(
      expect.arrayContaining([
        'alerts-evaluate-issue-created',
        'alerts-evaluate-issue-recurred',
        'alerts-evaluate-insight-generated',
        'alerts-evaluate-signal-matched',
        'alerts-digests',
        'alerts-slack-deliveries-sweep',
      ]),
    )
  })

  for (const [kind, create] of Object.entries(engines)) {
    it(`sends a new issue to Slack once its event commits (${kind})`, async () => {
      const org = await createOrganization(database.db, { name: kind })
      const integration = await seedSlackIntegration(
        database.db,
        org.id,
        `http://${receiver.host}/services/${kind}`,
      )
      await seedRule(database.db, {
        organizationId: org.id,
        name: 'New issues',
        trigger: 'issue_created',
        integrationId: integration.id,
      })
      engine = create()
      setAppJobsEngine(engine)
      await engine.start()
      const issue = await seedIssue(database.db, org.id, { title: `Broken on ${kind}` })
      await commitWithEvents(database.db, async (tx) => {
        await enqueueEvent(tx, {
          organizationId: org.id,
          name: EVENTS.issueCreated,
          payload: await issueEventData(tx, issue.id),
        })
      })
      const got = await waitFor('the Slack message', async () =>
        receiver.received.find((r) => r.path === `/services/${kind}`),
      )
      expect(JSON.stringify(got.body)).toContain(`Broken on ${kind}`)
    })
  }
})
