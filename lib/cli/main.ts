import { text } from 'node:stream/consumers'
import { runCli } from './run'

// Entry point of `npm run --silent admin -- <command>`: stdout carries only the result.
const code = await runCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  stdin: () => text(process.stdin),
})
process.exitCode = code
