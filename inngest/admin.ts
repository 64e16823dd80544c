import path from 'node:path'
import { text } from 'node:stream/consumers'
import { handOver } from '@/lib/cli/channel/hand-over'
import { parseConfig } from '@/lib/config'
import { runAdminCli } from './cli'

const out = {
  stdout: (line: string) => process.stdout.write(`${line}\n`),
  stderr: (line: string) => process.stderr.write(`${line}\n`),
}

/**
 * `--dir` names a folder of the caller's: made absolute here, so that a command handed over to
 * the running server (which has its own working directory) reads the same folder.
 */
function withAbsoluteDir(argv: string[]): string[] {
  return argv.map((arg, i) => {
    if (argv[i - 1] === '--dir' && !arg.startsWith('-')) return path.resolve(arg)
    if (arg.startsWith('--dir=')) return `--dir=${path.resolve(arg.slice('--dir='.length))}`
    return arg
  })
}

// Entry point of `npm run --silent admin -- <command>`: stdout carries only the result.
const code = await runAdminCli(withAbsoluteDir(process.argv.slice(2)), {
  ...out,
  env: process.env,
  stdin: () => text(process.stdin),
  // Reached only when the embedded database is held, so the configuration has parsed.
  handOver: (argv, stdin) =>
    handOver(parseConfig(process.env).dataDir, { argv, ...(stdin === undefined ? {} : { stdin }) }, out),
})
process.exitCode = code
