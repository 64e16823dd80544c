import path from 'node:path'

/**
 * The admin channel: while a server holds the embedded database, `npm run admin` hands its
 * command to that server over a Unix socket in DATA_DIR and prints what comes back. Only the
 * machine's user that runs the server can open it (directory 0700, socket 0600): whoever can
 * do that could read the database files anyway.
 *
 * One request per connection, newline-delimited JSON: the client sends a Request, the server
 * answers with Output lines and one Exit line.
 */
export interface ChannelRequest {
  argv: string[]
  stdin?: string
}

export type ChannelMessage = { stream: 'stdout' | 'stderr'; line: string } | { exit: number }

/** Larger requests are refused: a command line and a password are a few hundred bytes. */
export const MAX_REQUEST_BYTES = 64 * 1024

export function adminSocketPath(dataDir: string): string {
  return path.join(dataDir, 'admin', 'cli.sock')
}
