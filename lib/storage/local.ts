import { randomUUID } from 'node:crypto'
import { close, type Dirent, fdatasync, fsync, open as openFd, rename as renameFd, write } from 'node:fs'
import { type FileHandle, mkdir, open, readdir, readFile, rm, rmdir, unlink } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { promisify } from 'node:util'
import { GroupedSync } from './grouped-sync'
import { assertValidBlobKey, assertValidBlobPrefix, isValidBlobKey } from './keys'
import type { BlobStore, PutOptions } from './types'

/**
 * Blobs as plain files under one root directory (development and self-hosting). The key is the
 * relative path, so the layout stays readable with ordinary tools.
 *
 * Limitation inherent to files: a key cannot also be a directory, so `a/b` and `a/b/c` cannot
 * both exist here although they can on Vercel Blob. Keys in this project always end in a file
 * name with an extension, so the two never meet.
 */

// Dot-names are refused by the key validator, so temporary files never collide with a key and
// are skipped by list().
const TEMP_PREFIX = '.tmp-'

// Errors meaning "there is no object at this key": the path is missing, a parent is a file, or
// the key names a directory (a prefix of other keys, not an object).
const MISSING = new Set(['ENOENT', 'ENOTDIR', 'EISDIR'])

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined
}

function isMissing(error: unknown): boolean {
  return MISSING.has(errorCode(error) ?? '')
}

function toBytes(body: Uint8Array | string): Uint8Array {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body
}

// put() is on every ingest request: the callback API with plain descriptors costs the main
// thread less per call than fs/promises' FileHandle objects.
const openFile = promisify(openFd)
const writeAt = promisify(write)
const dataSync = promisify(fdatasync)
const fullSync = promisify(fsync)
const closeFile = promisify(close)
const renameFile = promisify(renameFd)

/** Makes a rename durable across a crash; some platforms cannot fsync a directory, which is fine. */
async function syncDirectory(dir: string): Promise<void> {
  let fd: number | undefined
  try {
    fd = await openFile(dir, 'r')
    await fullSync(fd)
  } catch {
    // best effort: the data itself is already fsynced
  } finally {
    if (fd !== undefined) await closeFile(fd).catch(() => {})
  }
}

/** Writes all of `bytes` from the start of a new file (write may write less than asked). */
async function writeAll(fd: number, bytes: Uint8Array): Promise<void> {
  let offset = 0
  while (offset < bytes.byteLength)
    offset += (await writeAt(fd, bytes, offset, bytes.byteLength - offset, null)).bytesWritten
}

/** How many directories put() remembers as existing, to skip its mkdir. */
const KNOWN_DIRECTORIES_MAX = 10_000

export interface LocalBlobStoreOptions {
  /** Makes a directory's entries durable; tests count and delay calls. */
  syncDirectory?: (dir: string) => Promise<void>
}

export class LocalBlobStore implements BlobStore {
  readonly kind = 'local' as const
  readonly root: string
  private readonly rootPrefix: string
  /**
   * Directory syncs after a rename, grouped per directory: puts into one directory (a
   * session's folder) that finish while its sync is in flight share the next one.
   */
  private readonly directorySyncs: GroupedSync
  /**
   * Directories this process created or wrote into: put() skips the mkdir for them. Only a
   * hint — delete() prunes empty directories, and then the temporary file's open fails with
   * ENOENT and put() creates the directory again.
   */
  private readonly knownDirectories = new Set<string>()

  constructor(root: string, options: LocalBlobStoreOptions = {}) {
    this.root = path.resolve(root)
    this.rootPrefix = this.root.endsWith(path.sep) ? this.root : this.root + path.sep
    this.directorySyncs = new GroupedSync(options.syncDirectory ?? syncDirectory)
  }

  private pathOf(key: string): string {
    assertValidBlobKey(key)
    const full = path.join(this.root, ...key.split('/'))
    // The validator already makes this impossible; the check keeps it so if the rules change.
    if (!full.startsWith(this.rootPrefix)) throw new Error(`blob key escapes the root: ${key}`)
    return full
  }

  /**
   * Durable before it returns, so a row may then name the key: the bytes are written to a
   * temporary file and fdatasync'ed (data and size), renamed into place (readers never see a
   * partial object, and a re-send of the same bytes replaces a complete file with a complete
   * file), and the directory is synced so the new name survives a crash (grouped, see
   * directorySyncs).
   */
  async put(key: string, body: Uint8Array | string, _options?: PutOptions): Promise<void> {
    const target = this.pathOf(key)
    const dir = path.dirname(target)
    const bytes = toBytes(body)
    // A concurrent delete may prune the directory before the temporary file is opened in it;
    // creating it again is enough.
    for (let attempt = 0; ; attempt++) {
      const temp = path.join(dir, `${TEMP_PREFIX}${randomUUID()}`)
      try {
        if (attempt > 0 || !this.knownDirectories.has(dir)) await mkdir(dir, { recursive: true, mode: 0o700 })
        const fd = await openFile(temp, 'wx', 0o600)
        this.rememberDirectory(dir)
        try {
          await writeAll(fd, bytes)
          await dataSync(fd)
        } finally {
          await closeFile(fd)
        }
        await renameFile(temp, target)
        await this.directorySyncs.sync(dir)
        return
      } catch (error) {
        if (errorCode(error) === 'ENOENT') this.knownDirectories.delete(dir)
        await rm(temp, { force: true }).catch(() => {})
        if (errorCode(error) === 'ENOENT' && attempt < 3) continue
        throw error
      }
    }
  }

  private rememberDirectory(dir: string): void {
    if (this.knownDirectories.size >= KNOWN_DIRECTORIES_MAX) this.knownDirectories.clear()
    this.knownDirectories.add(dir)
  }

  async get(key: string): Promise<Uint8Array | null> {
    const file = this.pathOf(key)
    try {
      const buffer = await readFile(file)
      // A plain Uint8Array view, so callers comparing with other adapters see the same type
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    } catch (error) {
      if (isMissing(error)) return null
      throw error
    }
  }

  async stream(key: string): Promise<ReadableStream<Uint8Array> | null> {
    const file = this.pathOf(key)
    let handle: FileHandle
    try {
      // Opening before returning makes "missing" a null rather than a failing stream, and the
      // open descriptor keeps reading the same object even if it is replaced or deleted meanwhile.
      handle = await open(file, 'r')
    } catch (error) {
      if (isMissing(error)) return null
      throw error
    }
    try {
      if (!(await handle.stat()).isFile()) {
        await handle.close()
        return null
      }
    } catch (error) {
      await handle.close().catch(() => {})
      throw error
    }
    const nodeStream = handle.createReadStream({ autoClose: true })
    return Readable.toWeb(nodeStream) as ReadableStream<Uint8Array>
  }

  async delete(keys: string[]): Promise<void> {
    // Validate everything first so that a hostile key in the batch deletes nothing.
    const files = keys.map((key) => this.pathOf(key))
    const dirs = new Set<string>()
    for (const file of files) {
      try {
        await unlink(file)
        dirs.add(path.dirname(file))
      } catch (error) {
        // EPERM: unlink of a directory on macOS; like EISDIR it means "not an object"
        if (!isMissing(error) && errorCode(error) !== 'EPERM') throw error
      }
    }
    for (const dir of dirs) await this.pruneEmptyDirectories(dir)
  }

  /** Retention deletes whole sessions; without this their empty directories would pile up. */
  private async pruneEmptyDirectories(start: string): Promise<void> {
    let dir = start
    while (dir.startsWith(this.rootPrefix) && dir !== this.root) {
      try {
        await rmdir(dir)
        this.knownDirectories.delete(dir)
      } catch {
        // not empty (or already gone, or concurrently refilled): stop climbing
        return
      }
      dir = path.dirname(dir)
    }
  }

  async list(prefix: string): Promise<string[]> {
    assertValidBlobPrefix(prefix)
    // Start at the deepest directory the prefix names completely; the rest is a string filter.
    const slash = prefix.lastIndexOf('/')
    const baseKey = slash === -1 ? '' : prefix.slice(0, slash)
    const keys: string[] = []
    await this.walk(baseKey, prefix, keys)
    return keys.sort()
  }

  private async walk(dirKey: string, prefix: string, out: string[]): Promise<void> {
    const dir = dirKey === '' ? this.root : path.join(this.root, ...dirKey.split('/'))
    let entries: Dirent[]
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch (error) {
      if (isMissing(error)) return
      throw error
    }
    for (const entry of entries) {
      const key = dirKey === '' ? entry.name : `${dirKey}/${entry.name}`
      // Skips temporary files and anything this store cannot have written; symlinks are neither
      // files nor directories here, so they are never followed out of the root
      if (!isValidBlobKey(key)) continue
      if (entry.isFile()) {
        if (key.startsWith(prefix)) out.push(key)
      } else if (entry.isDirectory()) {
        const asPrefix = `${key}/`
        if (asPrefix.startsWith(prefix) || prefix.startsWith(asPrefix)) await this.walk(key, prefix, out)
      }
    }
  }
}
