/**
 * A background worker in a process of its own, for tests that kill it with SIGKILL: the real
 * in-process jobs engine with the real job definitions, on the database of DATABASE_URL and
 * the blob files under DATA_DIR (both shared with the test process). Started by
 * tests/helpers/worker-process.ts with `node --import tsx`; its options arrive as JSON in
 * CRASH_WORKER_OPTIONS and it reports over the IPC channel.
 *
 * The only test seams it uses are the ones the app already has: the language model
 * (setLanguageModelForTests) and the webhook deliverer (useDeliverer, with the test CA and a
 * resolver that answers loopback only). Nothing in production code waits for a test.
 */
import { MockLanguageModelV3 } from 'ai/test'
import { buildJobDefinitions } from '@/inngest/app'
import { setLanguageModelForTests } from '@/lib/ai/model'
import { getConfig } from '@/lib/config'
import { createJobsEngine } from '@/lib/jobs'
import { createDeliverer } from '@/lib/webhooks/deliver'
// Renamed on import: the `use` prefix makes the linter take it for a React hook.
import { useDeliverer as installDeliverer } from '@/lib/webhooks/runtime'
import { loopbackResolver } from './webhooks'
import type { WorkerMessage, WorkerOptions } from './worker-process'

const options = JSON.parse(process.env.CRASH_WORKER_OPTIONS ?? '{}') as WorkerOptions

function report(message: WorkerMessage): void {
  process.send?.(message)
}

// Dies with the test process: a test runner killed mid-test must not leave this one behind.
process.on('disconnect', () => process.exit(0))

type CallOptions = MockLanguageModelV3['doGenerateCalls'][number]

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

/** What a provider that accepted the call and never answers looks like to the AI SDK. */
function hangingModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: (call: CallOptions) => {
      report({ type: 'model-call' })
      // Like a real provider's fetch, it gives up only when the caller's deadline aborts it.
      return new Promise((_, reject) => {
        call.abortSignal?.addEventListener('abort', () => reject(call.abortSignal?.reason))
      })
    },
  })
}

type Answers = Extract<WorkerOptions['model'], { kind: 'answer' }>

/** Answers by the schema the caller asked for: a signal decision has `matched`, a review has not. */
function answeringModel(answers: Answers): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: async (call: CallOptions) => {
      report({ type: 'model-call' })
      const format = call.responseFormat
      const schema = format?.type === 'json' ? JSON.stringify(format.schema ?? {}) : ''
      const answer = schema.includes('"matched"') ? answers.decision : answers.review
      return {
        content: [{ type: 'text', text: JSON.stringify(answer) }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      }
    },
  })
}

async function main(): Promise<void> {
  if (options.model?.kind === 'hang') setLanguageModelForTests(hangingModel())
  if (options.model?.kind === 'answer') setLanguageModelForTests(answeringModel(options.model))
  const { webhooks } = options
  // Without test receivers the deliverer stays the one the configuration builds.
  installDeliverer(
    webhooks
      ? createDeliverer({
          resolver: loopbackResolver(webhooks.hosts),
          ca: webhooks.ca,
          allowCidrs: ['127.0.0.1/32'],
        })
      : undefined,
  )
  const engine = createJobsEngine({ kind: 'in-process' }, buildJobDefinitions(getConfig()), {
    inProcess: {
      leaseMs: options.leaseMs,
      pollIntervalMs: options.pollIntervalMs,
      backoff: { baseMs: 100, maxMs: 500 },
    },
  })
  await engine.start()
  report({ type: 'ready', pid: process.pid })
}

main().catch((error: unknown) => {
  console.error('crash worker failed to start', error)
  process.exit(1)
})
