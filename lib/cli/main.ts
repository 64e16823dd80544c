import { text } from 'node:stream/consumers'
import { parseConfig } from '@/lib/config'
import { handOver } from './channel/hand-over'
import { runCli } from './run'

const out = {
  stdout: (line: string) => process.stdout.write(`${line}\n`),
  stderr: (line: string) => process.stderr.write(`${line}\n`),
}

// Entry point of `npm run --silent admin -- <command>`: stdout carries only the result.
const code = await runCli(process.argv.slice(2), {
  ...out,
  env: process.env,
  stdin: () => text(process.stdin),
  // Reached only when the embedded database is held, so the configuration has parsed.
  handOver: (argv, stdin) =>
    handOver(parseConfig(process.env).dataDir, { argv, ...(stdin === undefined ? {} : { stdin }) }, out),
})
process.exitCode = code
