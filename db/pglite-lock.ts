import { randomUUID } from 'node:crypto'
import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'

/**
 * PGlite is an embedded database: exactly one PGlite instance may open its files. The lock
 * file names the holder so that a second process (the admin CLI while `npm run dev` runs)
 * can say clearly who has it instead of corrupting it.
 */
export interface DataDirLock {
  release(): Promise<void>
}

export class DatabaseBusyError extends Error {
  override name = 'DatabaseBusyError'
}

interface LockOwner {
  pid?: number
  holder?: string
  nonce?: string
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

async function readOwner(file: string): Promise<LockOwner> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as LockOwner
  } catch {
    // missing, or half-written by a crashed process: no live owner
    return {}
  }
}

export async function acquireDataDirLock(dataDir: string, holder: string): Promise<DataDirLock> {
  await mkdir(dataDir, { recursive: true })
  const file = path.join(path.dirname(dataDir), `${path.basename(dataDir)}.lock`)
  const nonce = randomUUID()
  const content = JSON.stringify({ pid: process.pid, holder, nonce, since: new Date().toISOString() })
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(file, content, { flag: 'wx' })
      return {
        release: async () => {
          // Only remove the lock if it is still ours (a stale-lock takeover may have replaced it).
          if ((await readOwner(file)).nonce === nonce) await rm(file, { force: true })
        },
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const owner = await readOwner(file)
    // The same process counts too: a second PGlite on the same files would corrupt them.
    if (owner.pid && isAlive(owner.pid)) {
      throw new DatabaseBusyError(
        `The embedded database in ${dataDir} is held by ${owner.holder ?? 'another process'} (pid ${owner.pid}). ` +
          'Stop it first, or set DATABASE_URL to use a Postgres server that several processes can share.',
      )
    }
    // Stale: move it aside under a unique name, then check that what moved is the lock judged
    // stale. A racer that read the same stale lock may have moved it and written its own fresh
    // one between our read and our rename: then we moved the winner's lock, and put it back
    // (link creates the name only if nobody took it meanwhile); the next attempt finds the
    // winner alive. Without the check both racers held the lock (a CI run caught it). Three
    // racing on one stale lock at once can still, rarely, leave two holders: a third may create
    // its lock while the winner's is moved aside (4 in 300 such three-way races in a stress run,
    // against 39 before this check); one service and one CLI is the case that happens.
    const aside = `${file}.stale-${nonce}`
    if (
      await rename(file, aside).then(
        () => true,
        () => false,
      )
    ) {
      const moved = await readOwner(aside)
      if (moved.nonce !== owner.nonce || moved.pid !== owner.pid)
        await link(aside, file).catch(() => undefined)
      await rm(aside, { force: true })
    }
  }
  throw new DatabaseBusyError(`Could not lock the embedded database in ${dataDir}; try again`)
}
