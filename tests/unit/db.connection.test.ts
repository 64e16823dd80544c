import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { poolerAware } from '@/db/client'
import { acquireDataDirLock, DatabaseBusyError } from '@/db/pglite-lock'

describe('postgres connection URLs', () => {
  it('turns prepared statements off behind a transaction-mode pooler', () => {
    expect(poolerAware('postgres://u:p@db.example.com:5432/app')).toEqual({
      url: 'postgres://u:p@db.example.com:5432/app',
      pooled: false,
    })
    expect(poolerAware('postgres://u:p@pooler.example.com:6543/app').pooled).toBe(true)
    expect(poolerAware('postgres://u:p@db.example.com:5432/app?pgbouncer=true&sslmode=require')).toEqual({
      url: 'postgres://u:p@db.example.com:5432/app?sslmode=require',
      pooled: true,
    })
  })
})

describe('embedded database lock', () => {
  const dir = () => path.join(mkdtempSync(path.join(tmpdir(), 'lock-')), 'pglite')

  it('refuses a second holder, even in the same process, naming the first', async () => {
    const dataDir = dir()
    const lock = await acquireDataDirLock(dataDir, 'the service (test)')
    await expect(acquireDataDirLock(dataDir, 'the admin CLI')).rejects.toThrow(DatabaseBusyError)
    await expect(acquireDataDirLock(dataDir, 'the admin CLI')).rejects.toThrow(
      /held by the service \(test\) \(pid \d+\)/,
    )
    await lock.release()
    const again = await acquireDataDirLock(dataDir, 'the admin CLI')
    await again.release()
  })

  it('takes over the lock of a process that died, and only one of two racers wins', async () => {
    const dataDir = dir()
    const file = `${dataDir}.lock`
    await acquireDataDirLock(dataDir, 'setup').then((l) => l.release())
    writeFileSync(file, JSON.stringify({ pid: 2 ** 22 + 12345, holder: 'a dead process', nonce: 'x' }))
    const results = await Promise.allSettled([
      acquireDataDirLock(dataDir, 'racer one'),
      acquireDataDirLock(dataDir, 'racer two'),
    ])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    const winner = JSON.parse(readFileSync(file, 'utf8')) as { holder: string }
    expect(['racer one', 'racer two']).toContain(winner.holder)
  })

  it('does not remove a lock that is no longer its own', async () => {
    const dataDir = dir()
    const file = `${dataDir}.lock`
    const lock = await acquireDataDirLock(dataDir, 'first')
    writeFileSync(file, JSON.stringify({ pid: process.pid, holder: 'someone else', nonce: 'other' }))
    await lock.release()
    expect(JSON.parse(readFileSync(file, 'utf8')).holder).toBe('someone else')
  })
})
