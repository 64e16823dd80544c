import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

/**
 * An S3-compatible server (s3rver) on loopback for tests: a child process of its own (see
 * s3-server-entry.mjs for why), with one bucket in a fresh temporary directory. It exits when
 * this process dies, so several `npm start` processes can share one across a test.
 */
export interface S3Server {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string
  readonly port: number
  /** The server's process id (a benchmark counts its CPU). */
  readonly pid: number
  readonly bucket: string
  readonly region: string
  readonly accessKeyId: string
  readonly secretAccessKey: string
  /** The variables that point the service at this server (path-style, with the SDK's credentials). */
  readonly env: Record<string, string>
  /** Everything the server wrote to stdout and stderr, for failure messages. */
  output(): string
  /** Stops the server, waits for it to exit and deletes its directory. */
  stop(): Promise<void>
  /** SIGKILL at once (a crashed dependency); the directory is deleted once it has exited. */
  kill(): void
}

export interface S3ServerOptions {
  bucket?: string
  region?: string
  /** How long to wait for the server to listen. */
  startTimeoutMs?: number
}

const ENTRY = path.join(import.meta.dirname, 's3-server-entry.mjs')
// s3rver's built-in account
const ACCESS_KEY_ID = 'S3RVER'
const SECRET_ACCESS_KEY = 'S3RVER'

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

export async function startS3Server(options: S3ServerOptions = {}): Promise<S3Server> {
  const bucket = options.bucket ?? 'replays'
  const region = options.region ?? 'us-east-1'
  const directory = mkdtempSync(path.join(tmpdir(), 's3rver-'))
  const child = spawn(process.execPath, ['--openssl-legacy-provider', ENTRY, directory, bucket], {
    stdio: ['pipe', 'pipe', 'pipe'],
    // Only what Node needs: no NODE_OPTIONS of the test runner (loaders, inspectors)
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test' },
  })
  let output = ''
  child.stdout.setEncoding('utf8')
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk: string) => {
    output += chunk
  })
  const removeDirectory = () => rmSync(directory, { recursive: true, force: true })

  let port: number
  try {
    port = await new Promise<number>((resolve, reject) => {
      let line = ''
      const timer = setTimeout(
        () =>
          reject(new Error(`s3rver did not start within ${options.startTimeoutMs ?? 15_000} ms: ${output}`)),
        options.startTimeoutMs ?? 15_000,
      )
      const onData = (chunk: string) => {
        output += chunk
        line += chunk
        const newline = line.indexOf('\n')
        if (newline === -1) return
        clearTimeout(timer)
        child.stdout.off('data', onData)
        try {
          const parsed: unknown = JSON.parse(line.slice(0, newline))
          const value = (parsed as { port?: unknown }).port
          if (typeof value !== 'number') throw new Error('no port')
          resolve(value)
        } catch {
          reject(new Error(`s3rver printed something unexpected: ${line}`))
        }
      }
      child.stdout.on('data', onData)
      child.once('exit', (code, signal) => {
        clearTimeout(timer)
        reject(new Error(`s3rver exited before listening (${code ?? signal}): ${output}`))
      })
      child.once('error', (error) => {
        clearTimeout(timer)
        reject(error)
      })
    })
  } catch (error) {
    child.kill('SIGKILL')
    await exited(child)
    removeDirectory()
    throw error
  }
  // Later output is kept for failure messages
  child.stdout.on('data', (chunk: string) => {
    output += chunk
  })

  const endpoint = `http://127.0.0.1:${port}`
  return {
    endpoint,
    pid: child.pid ?? 0,
    port,
    bucket,
    region,
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: '1',
      S3_REGION: region,
      AWS_ACCESS_KEY_ID: ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
    },
    output: () => output,
    async stop() {
      // Closing stdin asks the server to close; a server that does not is killed
      child.stdin.end()
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
      await exited(child)
      clearTimeout(timer)
      removeDirectory()
    },
    kill() {
      child.kill('SIGKILL')
      void exited(child).then(removeDirectory)
    },
  }
}
