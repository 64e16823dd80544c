import { AsyncLocalStorage } from 'node:async_hooks'
import pino from 'pino'

/**
 * What every log line written while some work is under way says about that work: the
 * request that started it, and the background function run or webhook delivery carrying it
 * on. One request id follows an ingest batch from its route through the jobs it starts to
 * the webhooks they deliver, so a client's `X-Request-Id` finds every line it caused.
 */
export interface LogContext {
  requestId?: string
  organizationId?: string
  functionId?: string
  runId?: string
  deliveryId?: string
}

const context = new AsyncLocalStorage<LogContext>()

/** Runs `work` with these fields (added to any already in force) on every line it logs. */
export function withLogContext<T>(fields: LogContext, work: () => T): T {
  return context.run({ ...context.getStore(), ...fields }, work)
}

/** Adds fields learnt part-way through the work (the organization, once a key names it). */
export function annotateLogContext(fields: LogContext): void {
  const store = context.getStore()
  if (store) Object.assign(store, fields)
}

/** The id of the request that the current work serves, if any. */
export function currentRequestId(): string | undefined {
  return context.getStore()?.requestId
}

/**
 * Structured JSON logs. The level comes straight from LOG_LEVEL rather than the parsed
 * configuration so that a configuration error can itself be logged.
 */
const level = process.env.LOG_LEVEL?.trim() || 'info'

export const logger = pino({
  level: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level) ? level : 'info',
  base: { service: 'session-replay-issues' },
  mixin: () => ({ ...context.getStore() }),
  redact: {
    paths: [
      '*.password',
      '*.passwordHash',
      '*.token',
      '*.tokenHash',
      '*.key',
      '*.apiKey',
      '*.secret',
      '*.authSecret',
      '*.authorization',
      '*.cookie',
      '*.headers.authorization',
      '*.headers.cookie',
      '*.headers["x-service-api-key"]',
    ],
    censor: '[redacted]',
  },
})

export type Logger = typeof logger
