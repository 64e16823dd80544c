import type { ParseArgsConfig } from 'node:util'
import type { Db } from '@/db/client'

export type OptionSpec = NonNullable<ParseArgsConfig['options']>
export type OptionValues = Record<string, string | boolean | undefined>

/** One admin command: its options, and a run that returns the JSON object and a readable line. */
export interface CliCommand {
  name: string
  summary: string
  usage: string
  options: OptionSpec
  run(db: Db, values: OptionValues): Promise<{ json: Record<string, unknown>; text: string }>
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
