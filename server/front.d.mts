import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'

export declare const SOCKET_ADDRESS_HEADER: string
export declare const FRONT_SERVER_MARKER: unique symbol
export declare const MALFORMED_PATH: string
export declare function markFrontServer(): void
export declare function stampSocketAddress(req: IncomingMessage): void
export declare function createFrontServer(options: {
  handle: (req: IncomingMessage, res: ServerResponse) => unknown
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => unknown
  keepAliveTimeout?: number
}): Server
export declare function exitGracefully(
  server: Server,
  close: () => unknown,
  options?: { dev?: boolean; graceMs?: number },
): void
