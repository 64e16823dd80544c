import { chmod, lstat, mkdir, rm } from 'node:fs/promises'
import { createServer, type Server, type Socket } from 'node:net'
import path from 'node:path'
import { z } from 'zod'
import type { DatabaseHandle } from '@/db/client'
import type { CliWiring } from '../command'
import { runCli } from '../run'
import { adminSocketPath, type ChannelMessage, MAX_REQUEST_BYTES } from './protocol'

const Request = z.strictObject({
  argv: z.array(z.string().max(4096)).max(64),
  stdin: z.string().max(MAX_REQUEST_BYTES).optional(),
})

function send(socket: Socket, message: ChannelMessage): void {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`)
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return undefined
  }
}

async function answer(
  socket: Socket,
  raw: string,
  database: DatabaseHandle,
  wiring: CliWiring,
): Promise<void> {
  const parsed = Request.safeParse(parseJson(raw))
  if (!parsed.success) {
    send(socket, { stream: 'stderr', line: 'The admin channel received a malformed request.' })
    send(socket, { exit: 2 })
    socket.end()
    return
  }
  const { argv, stdin } = parsed.data
  const code = await runCli(argv, {
    stdout: (line) => send(socket, { stream: 'stdout', line }),
    stderr: (line) => send(socket, { stream: 'stderr', line }),
    env: process.env,
    ...(stdin === undefined ? {} : { stdin: async () => stdin }),
    database,
    wiring,
  })
  send(socket, { exit: code })
  socket.end()
}

function onConnection(socket: Socket, database: DatabaseHandle, wiring: CliWiring): void {
  let buffered = ''
  socket.setEncoding('utf8')
  socket.on('error', () => socket.destroy())
  socket.on('data', (chunk: string) => {
    buffered += chunk
    const end = buffered.indexOf('\n')
    if (end === -1) {
      if (buffered.length > MAX_REQUEST_BYTES) socket.destroy()
      return
    }
    socket.removeAllListeners('data')
    socket.pause()
    answer(socket, buffered.slice(0, end), database, wiring).catch(() => socket.destroy())
  })
}

/**
 * Listens on DATA_DIR/admin/cli.sock for admin commands, run here on the server's own database
 * handle with the service's wiring. Only called by the process holding the embedded database's
 * lock, so a socket file left there is a crashed predecessor's and is replaced.
 */
export async function serveAdminChannel(
  dataDir: string,
  database: DatabaseHandle,
  wiring: CliWiring,
): Promise<Server> {
  const file = adminSocketPath(dataDir)
  const dir = path.dirname(file)
  await mkdir(dir, { recursive: true, mode: 0o700 })
  // mkdir leaves an existing directory's mode alone; the socket's privacy rests on it.
  await chmod(dir, 0o700)
  const stat = await lstat(dir)
  if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid()))
    throw new Error(`${dir} must be a directory owned by this user`)
  await rm(file, { force: true })
  const server = createServer((socket) => onConnection(socket, database, wiring))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(file, () => {
      server.off('error', reject)
      resolve()
    })
  })
  await chmod(file, 0o600)
  server.unref()
  return server
}
