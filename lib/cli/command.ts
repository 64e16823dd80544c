import type { ParseArgsConfig } from 'node:util'
import type { Db } from '@/db/client'

export type OptionSpec = NonNullable<ParseArgsConfig['options']>
export type OptionValues = Record<string, string | boolean | undefined>

/** What a command may use besides its options; injected so that tests need no process. */
export interface CommandIo {
  /** All of standard input, read to its end. */
  readStdin(): Promise<string>
  /** One line on stderr that does not make the command fail. */
  warn(line: string): void
}

/** One admin command: its options, and a run that returns the JSON object and a readable line. */
export interface CliCommand {
  name: string
  summary: string
  usage: string
  options: OptionSpec
  run(db: Db, values: OptionValues, io: CommandIo): Promise<{ json: Record<string, unknown>; text: string }>
}

export class UsageError extends Error {
  override name = 'UsageError'
}

export function requireString(values: OptionValues, name: string, usage: string): string {
  const value = values[name]
  if (typeof value !== 'string' || value.trim() === '')
    throw new UsageError(`Missing --${name}. Usage: ${usage}`)
  return value
}

export function optionalString(values: OptionValues, name: string): string | undefined {
  const value = values[name]
  return typeof value === 'string' ? value : undefined
}
