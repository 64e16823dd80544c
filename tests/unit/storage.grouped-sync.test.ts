import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { GroupedSync } from '@/lib/storage/grouped-sync'
import { LocalBlobStore } from '@/lib/storage/local'

/** A sync whose calls are recorded and finish only when the test says so. */
function controlledSync() {
  const calls: { target: string; finish: () => void; fail: (error: Error) => void }[] = []
  const syncOne = (target: string) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ target, finish: resolve, fail: reject })
    })
  return { calls, syncOne }
}

const settled = () => new Promise((resolve) => setImmediate(resolve))

function track(promise: Promise<void>) {
  const state = { done: false, error: undefined as unknown }
  promise.then(
    () => {
      state.done = true
    },
    (error: unknown) => {
      state.error = error
    },
  )
  return state
}

describe('GroupedSync', () => {
  it('answers a caller only after a sync that began after it asked, sharing the next sync', async () => {
    const { calls, syncOne } = controlledSync()
    const group = new GroupedSync(syncOne)
    const first = track(group.sync('dir'))
    await settled()
    expect(calls).toHaveLength(1)

    // These ask while the first sync is in flight: it may not cover their changes.
    const later = [track(group.sync('dir')), track(group.sync('dir')), track(group.sync('dir'))]
    await settled()
    expect(calls).toHaveLength(1)

    calls[0]!.finish()
    await settled()
    expect(first.done).toBe(true)
    expect(later.map((s) => s.done)).toEqual([false, false, false])
    // One more sync serves all three.
    expect(calls).toHaveLength(2)

    calls[1]!.finish()
    await settled()
    expect(later.map((s) => s.done)).toEqual([true, true, true])
    expect(calls).toHaveLength(2)
  })

  it('keeps targets apart and fails only the round whose sync failed', async () => {
    const { calls, syncOne } = controlledSync()
    const group = new GroupedSync(syncOne)
    const a = track(group.sync('a'))
    const b = track(group.sync('b'))
    await settled()
    expect(calls.map((c) => c.target)).toEqual(['a', 'b'])
    const aLater = track(group.sync('a'))
    calls[0]!.fail(new Error('disk gone'))
    await settled()
    expect(a.error).toBeInstanceOf(Error)
    expect(aLater.done).toBe(false)
    expect(b.done).toBe(false)
    calls[2]!.finish()
    calls[1]!.finish()
    await settled()
    expect(aLater.done).toBe(true)
    expect(aLater.error).toBeUndefined()
    expect(b.done).toBe(true)
  })

  it('starts afresh once idle', async () => {
    let count = 0
    const group = new GroupedSync(async () => {
      count += 1
    })
    await group.sync('dir')
    await group.sync('dir')
    expect(count).toBe(2)
  })
})

describe('LocalBlobStore: grouped directory syncs', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'grouped-sync-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('never acknowledges a put before a directory sync that began after its file was in place', async () => {
    // What each sync covers: the files in the directory when it began.
    const syncs: { covered: string[]; finish: () => void }[] = []
    const store = new LocalBlobStore(root, {
      syncDirectory: (dir) =>
        new Promise<void>((resolve) => {
          syncs.push({ covered: readdirSync(dir).filter((name) => !name.startsWith('.')), finish: resolve })
        }),
    })
    const keys = Array.from(
      { length: 10 },
      (_, i) => `orgs/o/sessions/s/${String(i).padStart(10, '0')}-x.json`,
    )
    const puts = keys.map((key) => track(store.put(key, `{"n":"${key}"}`)))

    // Finish the syncs one at a time, in order; after each, every acknowledged put must have
    // its file covered by a finished sync.
    const durable = new Set<string>()
    let finishedSyncs = 0
    for (let round = 0; round < 200 && puts.some((p) => !p.done); round++) {
      await new Promise((resolve) => setTimeout(resolve, 2))
      puts.forEach((p, i) => {
        if (p.done) expect(durable.has(path.basename(keys[i]!))).toBe(true)
      })
      const next = syncs[finishedSyncs]
      if (!next) continue
      for (const name of next.covered) durable.add(name)
      finishedSyncs += 1
      next.finish()
    }
    expect(puts.every((p) => p.done)).toBe(true)
    // Concurrent puts into one directory shared syncs.
    expect(syncs.length).toBeLessThan(keys.length)
    for (const key of keys) expect(existsSync(path.join(root, key))).toBe(true)
  })

  it('writes into a directory again after another store pruned it', async () => {
    let syncs = 0
    const store = new LocalBlobStore(root, {
      syncDirectory: async () => {
        syncs += 1
      },
    })
    const other = new LocalBlobStore(root)
    await store.put('orgs/p/sessions/t/0000000001-a.json', 'one')
    // store still believes the directory exists; the other instance (another process, say) removes it.
    await other.delete(['orgs/p/sessions/t/0000000001-a.json'])
    expect(existsSync(path.join(root, 'orgs/p'))).toBe(false)
    await store.put('orgs/p/sessions/t/0000000002-b.json', 'two')
    expect(new TextDecoder().decode((await store.get('orgs/p/sessions/t/0000000002-b.json'))!)).toBe('two')
    expect(syncs).toBe(2)
  })
})
