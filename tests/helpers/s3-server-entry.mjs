/**
 * Runs s3rver for tests/helpers/s3-server.ts, in a process of its own because s3rver's list
 * continuation tokens use DES, which Node's OpenSSL 3 refuses without --openssl-legacy-provider.
 * Arguments: <directory> <bucket>. Prints {"port": n} once listening; exits when its parent's
 * end of stdin closes, so a crashed test run leaves no server behind.
 */
import S3rver from 's3rver'

const [directory, bucket] = process.argv.slice(2)
if (!directory || !bucket) {
  process.stderr.write('usage: s3-server-entry.mjs <directory> <bucket>\n')
  process.exit(2)
}

const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  directory,
  silent: true,
  configureBuckets: [{ name: bucket }],
})

const { port } = await server.run()
process.stdout.write(`${JSON.stringify({ port })}\n`)

let closing = false
async function shutdown() {
  if (closing) return
  closing = true
  // Exits even if closing hangs on a connection left open
  setTimeout(() => process.exit(0), 2_000).unref()
  await server.close().catch(() => {})
  process.exit(0)
}
process.stdin.on('end', shutdown)
process.stdin.on('close', shutdown)
process.stdin.resume()
process.on('SIGTERM', shutdown)
