import { DatabaseBusyError } from '@/db/pglite-lock'
import { ConfigError } from './config'
import { AppError } from './errors'

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
])
// Postgres' own codes for a database that does not exist or credentials it refuses.
const SERVER_SETUP_CODES = new Set(['3D000', '28P01', '28000'])

/**
 * What an operator should read when the CLI, the migration command or server start-up fails
 * for a reason they can fix: one line, no stack. Undefined for a bug, which deserves a stack.
 */
export function operatorMessage(error: unknown): string | undefined {
  if (error instanceof ConfigError || error instanceof DatabaseBusyError || error instanceof AppError)
    return oneLine(error.message)
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || SERVER_SETUP_CODES.has(code)))
    return oneLine(`Cannot use the database (${code}: ${(error as Error).message}); check DATABASE_URL`)
  return undefined
}

export function oneLine(message: string): string {
  return message.replace(/\s+/g, ' ').trim()
}
