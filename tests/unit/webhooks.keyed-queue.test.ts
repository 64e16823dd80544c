import { describe, expect, it } from 'vitest'
import { KeyedQueue } from '@/lib/webhooks/keyed-queue'

/** A task that records its start and finishes when the test says so. */
function controlled(log: string[], name: string) {
  let finish = () => {}
  const done = new Promise<void>((resolve) => {
    finish = resolve
  })
  return {
    run: () => {
      log.push(name)
      return done
    },
    finish,
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('KeyedQueue', () => {
  it('keeps each key within its bound and starts its tasks in order, other keys side by side', async () => {
    const queue = new KeyedQueue(3, 1)
    const started: string[] = []
    const tasks = ['a1', 'a2', 'b1', 'a3', 'b2', 'c1'].map((name) => ({ name, ...controlled(started, name) }))
    for (const t of tasks) queue.add(t.name[0]!, t.run)
    expect(started).toEqual(['a1', 'b1', 'c1'])
    expect(queue.backlog).toBe(3)
    tasks.find((t) => t.name === 'b1')!.finish()
    await settle()
    expect(started).toEqual(['a1', 'b1', 'c1', 'b2'])
    tasks.find((t) => t.name === 'a1')!.finish()
    await settle()
    expect(started.at(-1)).toBe('a2')
    for (const t of tasks) t.finish()
    await queue.idle()
    expect(started).toEqual(['a1', 'b1', 'c1', 'b2', 'a2', 'a3'])
  })

  it('never runs more than the overall bound, and a failing task frees its slot', async () => {
    const queue = new KeyedQueue(2, 5)
    let running = 0
    let most = 0
    for (let i = 0; i < 10; i++)
      queue.add(`k${i % 3}`, async () => {
        running++
        most = Math.max(most, running)
        await settle()
        running--
        if (i % 4 === 0) throw new Error('task failed')
      })
    await queue.whenBacklogBelow(1)
    await queue.idle()
    expect(most).toBe(2)
    expect(queue.backlog).toBe(0)
  })
})
