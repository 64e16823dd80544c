import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import tar from 'tar-stream'
import type { BundleFile } from './bundle'

const gzipAsync = promisify(gzip)

export const BUNDLE_FOLDER = 'reproductions'

/**
 * The bundle as a .tgz, every file under `reproductions/`. Packed in memory: at most 100 tests
 * of a few kilobytes each plus four small files, so well under a few megabytes; the tar step
 * only copies buffers, and zlib's asynchronous gzip compresses on libuv's thread pool, off the
 * request thread.
 */
export async function bundleTgz(files: readonly BundleFile[]): Promise<Buffer> {
  const pack = tar.pack()
  const chunks: Buffer[] = []
  pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer))
  const ended = new Promise<void>((resolve, reject) => {
    pack.on('end', resolve)
    pack.on('error', reject)
  })
  const mtime = new Date()
  pack.entry({ name: `${BUNDLE_FOLDER}/`, type: 'directory', mode: 0o755, mtime })
  for (const file of files)
    pack.entry(
      { name: `${BUNDLE_FOLDER}/${file.path}`, mode: 0o644, mtime },
      Buffer.from(file.content, 'utf8'),
    )
  pack.finalize()
  await ended
  return gzipAsync(Buffer.concat(chunks))
}
