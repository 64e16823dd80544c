import net from 'node:net'

/**
 * How a cut looks to the client:
 * - 'refuse': every open connection is destroyed and the listener is closed, so a new
 *   connect fails at once with ECONNREFUSED (the database host is down);
 * - 'reset': every open connection is destroyed and each new one is accepted and closed at
 *   once (a TCP load balancer or pooler whose database is gone).
 */
export type CutMode = 'refuse' | 'reset'

/**
 * A loopback TCP proxy in front of a real server, for fault tests: `cut()` breaks every
 * connection and refuses new ones, `restore()` forwards again on the same port, so clients
 * configured with the proxy's address reconnect unchanged.
 */
export interface TcpProxy {
  readonly port: number
  /** Connections forwarded to the target since the proxy started. */
  readonly forwarded: number
  /** Connections accepted and closed at once during a 'reset' cut. */
  readonly reset: number
  cut(mode?: CutMode): Promise<void>
  restore(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>()
  let forwarded = 0
  let reset = 0
  let resetting = false
  let server: net.Server | undefined
  let port = 0

  const onConnection = (client: net.Socket) => {
    if (resetting) {
      reset++
      client.destroy()
      return
    }
    forwarded++
    const upstream = net.connect(target.port, target.host)
    sockets.add(client)
    sockets.add(upstream)
    const drop = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('error', drop)
    upstream.on('error', drop)
    client.on('close', drop)
    upstream.on('close', drop)
    client.pipe(upstream)
    upstream.pipe(client)
  }

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = net.createServer(onConnection)
      next.once('error', reject)
      // Port 0 the first time; the same port again after a 'refuse' cut.
      next.listen(port, '127.0.0.1', () => {
        next.off('error', reject)
        server = next
        port = (next.address() as net.AddressInfo).port
        resolve()
      })
    })

  const stopListening = () =>
    new Promise<void>((resolve) => {
      const current = server
      server = undefined
      if (!current) return resolve()
      // close() resolves once the open connections are gone; they are destroyed right after.
      current.close(() => resolve())
    })

  const destroyAll = () => {
    for (const socket of sockets) socket.destroy()
    sockets.clear()
  }

  await listen()
  return {
    get port() {
      return port
    },
    get forwarded() {
      return forwarded
    },
    get reset() {
      return reset
    },
    async cut(mode: CutMode = 'refuse') {
      if (mode === 'reset') {
        resetting = true
        destroyAll()
        return
      }
      const closed = stopListening()
      destroyAll()
      await closed
    },
    async restore() {
      resetting = false
      if (!server) await listen()
    },
    async close() {
      const closed = stopListening()
      destroyAll()
      await closed
    },
  }
}
