import type { CliWiring } from '@/lib/cli/command'
import { type CliIo, runCli } from '@/lib/cli/run'
import { createLocalJobsEngine } from './app'

/** The service's wiring the admin commands need, handed to lib/cli, which never imports inngest/. */
export const cliWiring: CliWiring = {
  localJobsEngine: (db, options) => createLocalJobsEngine(db, options).engine,
}

/** Runs one admin command with the service's wiring (the `admin` script, tests). */
export function runAdminCli(argv: string[], io: Omit<CliIo, 'wiring'>): Promise<number> {
  return runCli(argv, { ...io, wiring: cliWiring })
}
