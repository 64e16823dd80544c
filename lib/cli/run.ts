import { parseArgs } from 'node:util'
import type { DatabaseHandle } from '@/db/client'
import { openMigratedDatabase } from '@/db/migrate'
import { DatabaseBusyError } from '@/db/pglite-lock'
import { parseConfig } from '@/lib/config'
import { oneLine, operatorMessage } from '@/lib/operator-errors'
import { type CliCommand, type CliWiring, type CommandIo, UsageError } from './command'
import { commands } from './commands'

export interface CliIo {
  stdout: (line: string) => void
  stderr: (line: string) => void
  env: Record<string, string | undefined>
  /** All of standard input (`--password-stdin`); absent when the caller has none to give. */
  stdin?: () => Promise<string>
  /** Tests pass the database they made; otherwise the CLI opens the configured one. */
  database?: DatabaseHandle
  /**
   * When the embedded database is held by a running server: runs the command in that server
   * instead (lib/cli/channel), given the arguments and standard input read beforehand.
   * Answers undefined when no server is listening, so that the "held" error stands.
   */
  handOver?: (argv: string[], stdin: string | undefined) => Promise<number | undefined>
  /** The service's wiring the commands need (./command.ts); inngest/cli.ts builds it. */
  wiring: CliWiring
}

function commandIo(io: CliIo): CommandIo {
  return {
    readStdin: io.stdin ?? (() => Promise.reject(new UsageError('Standard input is not available.'))),
    warn: (line) => io.stderr(oneLine(line)),
    wiring: io.wiring,
  }
}

function help(): string {
  const width = Math.max(...commands.map((c) => c.name.length))
  return [
    'Usage: npm run --silent admin -- <command> [options] [--json]',
    '',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.usage.slice(c.name.length + 1)}`),
  ].join('\n')
}

function openDatabase(env: CliIo['env']): Promise<DatabaseHandle> {
  return openMigratedDatabase(parseConfig(env).database, { holder: 'the admin CLI', maxConnections: 2 })
}

function commandHelp(command: CliCommand): string {
  return [`${command.summary}.`, '', `Usage: npm run --silent admin -- ${command.usage} [--json]`].join('\n')
}

/** Standard input a command will read (`--password-stdin`), read now to hand it over. */
async function stdinFor(values: Record<string, unknown>, io: CliIo): Promise<string | undefined> {
  const wantsStdin = Object.entries(values).some(([name, value]) => name.endsWith('-stdin') && value === true)
  return wantsStdin && io.stdin ? io.stdin() : undefined
}

/** Runs one admin command; returns the process exit code (0 ok, 1 failure, 2 usage). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    io.stdout(help())
    return name ? 0 : 2
  }
  const command: CliCommand | undefined = commands.find((c) => c.name === name)
  if (!command) {
    io.stderr(`Unknown command "${name}". Run "npm run --silent admin -- help" for the list.`)
    return 2
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(commandHelp(command))
    return 0
  }
  let handle: DatabaseHandle | undefined
  try {
    const { values } = parseArgs({
      args: rest,
      options: { ...command.options, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    })
    try {
      handle = io.database ?? (await openDatabase(io.env))
    } catch (error) {
      if (!(error instanceof DatabaseBusyError) || !io.handOver) throw error
      const stdin = await stdinFor(values, io)
      const code = await io.handOver(argv, stdin)
      if (code === undefined) throw error
      return code
    }
    const result = await command.run(handle.db, values, commandIo(io))
    io.stdout(values.json ? JSON.stringify(result.json) : result.text)
    return 0
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(oneLine(error.message))
      return 2
    }
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(oneLine(`${(error as Error).message}. Usage: ${command.usage}`))
      return 2
    }
    const known = operatorMessage(error)
    if (known) {
      io.stderr(known)
      return 1
    }
    io.stderr(oneLine(`Unexpected error: ${error instanceof Error ? error.message : String(error)}`))
    return 1
  } finally {
    if (handle && handle !== io.database) await handle.close()
  }
}
