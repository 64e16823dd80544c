import { open, readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { InvalidInputError, PayloadTooLargeError } from '@/lib/errors'
import { COMMENT_TAIL_BYTES, readSourceMappingUrl } from '@/lib/symbolication/comments'
import type { UploadPart } from './files'
import { REQUEST_TOO_LARGE, SOURCEMAP_LIMITS } from './limits'

const MINIFIED = ['.js', '.mjs', '.cjs']
/** A build folder is shallow; the bounds stop a walk started at the wrong place (`/`, a home). */
const MAX_DEPTH = 32
const MAX_ENTRIES = 50_000

async function tail(file: string, size: number): Promise<string> {
  const handle = await open(file, 'r')
  try {
    const length = Math.min(size, COMMENT_TAIL_BYTES)
    const buffer = Buffer.alloc(length)
    await handle.read(buffer, 0, length, size - length)
    return buffer.toString('latin1')
  } finally {
    await handle.close()
  }
}

/**
 * The parts `admin sourcemaps:upload --dir` sends: every `.map` under the folder, and each
 * `.js`/`.mjs`/`.cjs` file that has a map beside it or names one in `//# sourceMappingURL=`
 * (only those take part in pairing). Paths are relative to the folder, with `/`. Symbolic
 * links are not followed; sizes are checked before any file is read.
 */
export async function collectBuildFolder(root: string): Promise<UploadPart[]> {
  const found: { relative: string; full: string; size: number }[] = []
  let entries = 0
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) return
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (++entries > MAX_ENTRIES)
        throw new InvalidInputError(
          `${root} holds more than ${MAX_ENTRIES} entries: point --dir at the build output`,
        )
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) await walk(full, depth + 1)
      else if (
        entry.isFile() &&
        (entry.name.endsWith('.map') || MINIFIED.some((e) => entry.name.endsWith(e)))
      )
        found.push({
          relative: path.relative(root, full).split(path.sep).join('/'),
          full,
          size: (await stat(full)).size,
        })
    }
  }
  await walk(root, 0)
  const maps = new Set(found.filter((f) => f.relative.endsWith('.map')).map((f) => f.relative))
  const chosen: typeof found = []
  for (const file of found) {
    if (file.relative.endsWith('.map') || maps.has(`${file.relative}.map`)) chosen.push(file)
    else if (file.size <= SOURCEMAP_LIMITS.maxFileBytes) {
      const reference = readSourceMappingUrl(await tail(file.full, file.size))
      if (reference && !/^data:/i.test(reference)) chosen.push(file)
    }
  }
  if (maps.size === 0) throw new InvalidInputError(`No .map files under ${root}`)
  if (chosen.length > SOURCEMAP_LIMITS.maxFiles)
    throw new InvalidInputError(
      `${chosen.length} files under ${root}: at most ${SOURCEMAP_LIMITS.maxFiles} per upload; upload sub-folders separately`,
    )
  if (chosen.reduce((sum, f) => sum + f.size, 0) > SOURCEMAP_LIMITS.maxRequestBytes)
    throw new PayloadTooLargeError(REQUEST_TOO_LARGE)
  const parts: UploadPart[] = []
  for (const file of chosen.sort((a, b) => a.relative.localeCompare(b.relative)))
    parts.push({ name: file.relative, bytes: await readFile(file.full) })
  return parts
}
