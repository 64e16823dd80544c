import { connect } from 'node:net'
import { adminSocketPath, type ChannelMessage, type ChannelRequest } from './protocol'

interface Output {
  stdout: (line: string) => void
  stderr: (line: string) => void
}

/**
 * Sends a command to the server holding the embedded database and relays its output; resolves
 * to the command's exit code, or undefined when no server listens (a stale or absent socket).
 */
export function handOver(dataDir: string, request: ChannelRequest, out: Output): Promise<number | undefined> {
  return new Promise((resolve) => {
    let connected = false
    let exit: number | undefined
    let buffered = ''
    const socket = connect(adminSocketPath(dataDir))
    socket.setEncoding('utf8')
    socket.on('connect', () => {
      connected = true
      socket.write(`${JSON.stringify(request)}\n`)
    })
    socket.on('data', (chunk: string) => {
      buffered += chunk
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, end)) as ChannelMessage
        buffered = buffered.slice(end + 1)
        if ('exit' in message) exit = message.exit
        else out[message.stream](message.line)
      }
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected) return resolve(undefined)
      out.stderr(`The running server closed the admin channel: ${error.message}`)
      resolve(1)
    })
    socket.on('close', () => {
      if (!connected) return resolve(undefined)
      if (exit === undefined)
        out.stderr('The running server closed the admin channel before the command finished.')
      resolve(exit ?? 1)
    })
  })
}
