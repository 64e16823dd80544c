import type { ParseArgsConfig } from 'node:util'
import type { Db } from '@/db/client'
import type { InProcessEngine, InProcessOptions } from '@/lib/jobs/in-process'

export type OptionSpec = NonNullable<ParseArgsConfig['options']>
export type OptionValues = Record<string, string | boolean | undefined>

/**
 * What commands need from the service's wiring. The composition root (inngest/) builds it and
 * the CLI's entry points hand it in (inngest/cli.ts, inngest/startup.ts for the admin channel):
 * lib/ never imports inngest/, so the job list's handlers never import the CLI back.
 */
export interface CliWiring {
  /**
   * The service's one job list on an in-process engine of its own over `db`, never started:
   * its handlers get `db` and that engine, so what they send runs in the same `jobs:run`.
   */
  localJobsEngine(db: Db, options: Omit<InProcessOptions, 'db'>): InProcessEngine
}

/** What a command may use besides its options; injected so that tests need no process. */
export interface CommandIo {
  /** All of standard input, read to its end. */
  readStdin(): Promise<string>
  /** One line on stderr that does not make the command fail. */
  warn(line: string): void
  wiring: CliWiring
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
