import { parseArgs } from 'node:util'
import type { DatabaseHandle } from '@/db/client'
import { openMigratedDatabase } from '@/db/migrate'
import { parseConfig } from '@/lib/config'
import { oneLine, operatorMessage } from '@/lib/operator-errors'
import { type CliCommand, type CommandIo, UsageError } from './command'
import { commands } from './commands'

export interface CliIo {
  stdout: (line: string) => void
  stderr: (line: string) => void
  env: Record<string, string | undefined>
  /** All of standard input (`--password-stdin`); absent when the caller has none to give. */
  stdin?: () => Promise<string>
  /** Tests pass the database they made; otherwise the CLI opens the configured one. */
  database?: DatabaseHandle
}

function commandIo(io: CliIo): CommandIo {
  return {
    readStdin: io.stdin ?? (() => Promise.reject(new UsageError('Standard input is not available.'))),
    warn: (line) => io.stderr(oneLine(line)),
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
  let handle: DatabaseHandle | undefined
  try {
    const { values } = parseArgs({
      args: rest,
      options: { ...command.options, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    })
    handle = io.database ?? (await openDatabase(io.env))
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
