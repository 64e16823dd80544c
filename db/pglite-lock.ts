import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'

/**
 * PGlite is an embedded database: exactly one process may open its files. The lock file
 * names the holder so that a second process (the admin CLI while `npm run dev` runs) can say
 * clearly who has it instead of corrupting it.
 */
export interface DataDirLock {
  release(): Promise<void>
}

export class DatabaseBusyError extends Error {
  override name = 'DatabaseBusyError'
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export async function acquireDataDirLock(dataDir: string, holder: string): Promise<DataDirLock> {
  await mkdir(dataDir, { recursive: true })
  const file = path.join(path.dirname(dataDir), `${path.basename(dataDir)}.lock`)
  const content = JSON.stringify({ pid: process.pid, holder, since: new Date().toISOString() })
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, content, { flag: 'wx' })
      return {
        release: async () => {
          await rm(file, { force: true })
        },
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const existing = await readFile(file, 'utf8').catch(() => '')
      let owner: { pid?: number; holder?: string } = {}
      try {
        owner = JSON.parse(existing)
      } catch {
        // half-written by a crashed process: treat as stale
      }
      if (owner.pid && owner.pid !== process.pid && isAlive(owner.pid)) {
        throw new DatabaseBusyError(
          `The embedded database in ${dataDir} is held by ${owner.holder ?? 'another process'} (pid ${owner.pid}). ` +
            'Stop it first, or set DATABASE_URL to use a Postgres server that several processes can share.',
        )
      }
      await rm(file, { force: true })
    }
  }
  throw new DatabaseBusyError(`Could not lock the embedded database in ${dataDir}`)
}
