import pino from 'pino'

/**
 * Structured JSON logs. The level comes straight from LOG_LEVEL rather than the parsed
 * configuration so that a configuration error can itself be logged.
 */
const level = process.env.LOG_LEVEL?.trim() || 'info'

export const logger = pino({
  level: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level) ? level : 'info',
  base: { service: 'session-replay-issues' },
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
