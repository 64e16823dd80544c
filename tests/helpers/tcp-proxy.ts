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
 * configured with the proxy's address reconnect unchanged. `hold()` keeps connections open
 * but withholds the server's answers (a server that has stopped responding) until `release()`.
 */
export interface TcpProxy {
  readonly port: number
  /** Connections forwarded to the target since the proxy started. */
  readonly forwarded: number
  /** Connections accepted and closed at once during a 'reset' cut. */
  readonly reset: number
  cut(mode?: CutMode): Promise<void>
  restore(): Promise<void>
  /** Answers from the server wait in the proxy, on open and new connections alike. */
  hold(): void
  /** Passes on the withheld answers and forwards normally again. */
  release(): void
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>()
  /** Each forwarded connection's pair, to stop and restart the answers' flow. */
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>()
  let holding = false
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
    const pair = { client, upstream }
    sockets.add(client)
    sockets.add(upstream)
    pairs.add(pair)
    const drop = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
      pairs.delete(pair)
    }
    client.on('error', drop)
    upstream.on('error', drop)
    client.on('close', drop)
    upstream.on('close', drop)
    client.pipe(upstream)
    if (holding) upstream.pause()
    else upstream.pipe(client)
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
    pairs.clear()
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
    hold() {
      holding = true
      for (const { client, upstream } of pairs) {
        upstream.unpipe(client)
        upstream.pause()
      }
    },
    release() {
      holding = false
      for (const { client, upstream } of pairs) upstream.pipe(client)
    },
    async close() {
      const closed = stopListening()
      destroyAll()
      await closed
    },
  }
}
