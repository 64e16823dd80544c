import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pipelinedTransaction } from '@/db/pipelined-transaction'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { logStatements } from '../helpers/statement-count'

/** db/pipelined-transaction.ts on both engines: what is committed, what is rolled back. */

let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase()
  await database.db.execute(sql`create table pipelined_probe (name text primary key)`)
})
afterAll(async () => {
  await database.close()
})

const insert = (name: string) => sql`insert into pipelined_probe (name) values (${name}) returning name`

async function stored(name: string): Promise<boolean> {
  const result = (await database.db.execute(
    sql`select 1 from pipelined_probe where name = ${name}`,
  )) as unknown
  const rows = Array.isArray(result) ? result : ((result as { rows: unknown[] }).rows ?? [])
  return rows.length === 1
}

describe('pipelinedTransaction', () => {
  it('commits both statements, as four statements (BEGIN, two, COMMIT)', async () => {
    const log = logStatements(database)
    try {
      const rows = await pipelinedTransaction(database.db, async (tx) => {
        const [first] = await tx.query(insert('both-1'))
        const [last] = await tx.commitWith(insert('both-2'))
        return [first?.name, last?.name]
      })
      expect(rows).toEqual(['both-1', 'both-2'])
      expect(log.statements).toHaveLength(4)
    } finally {
      log.stop()
    }
    expect(await stored('both-1')).toBe(true)
    expect(await stored('both-2')).toBe(true)
  })

  it('rolls back what ran when the body throws before its last statement', async () => {
    await expect(
      pipelinedTransaction(database.db, async (tx) => {
        await tx.query(insert('thrown-1'))
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    expect(await stored('thrown-1')).toBe(false)
  })

  it('keeps the last statement committed when the body throws after it', async () => {
    await expect(
      pipelinedTransaction(database.db, async (tx) => {
        await tx.query(insert('after-1'))
        await tx.commitWith(insert('after-2'))
        throw new Error('refused after the commit')
      }),
    ).rejects.toThrow('refused after the commit')
    expect(await stored('after-1')).toBe(true)
    expect(await stored('after-2')).toBe(true)
  })

  it('commits nothing when the last statement fails, and the connection is usable again', async () => {
    await expect(
      pipelinedTransaction(database.db, async (tx) => {
        await tx.query(insert('failed-1'))
        // A duplicate key: the statement fails and COMMIT, sent behind it, rolls back.
        await tx.commitWith(insert('failed-1'))
      }),
    ).rejects.toThrow()
    expect(await stored('failed-1')).toBe(false)
    for (let i = 0; i < 12; i++)
      await pipelinedTransaction(database.db, async (tx) => {
        await tx.query(insert(`again-${i}`))
        await tx.commitWith(sql`select 1`)
      })
    expect(await stored('again-11')).toBe(true)
  })
})
