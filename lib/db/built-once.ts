import type { DbOrTx } from '@/db/client'

/**
 * Built query statements per database handle. Building a drizzle query (selection, joins,
 * conditions, SQL text) costs more CPU than the hot reads themselves, and the text never
 * changes: hot paths build each variant once per handle and run it with placeholders. Keyed
 * weakly by the handle, so a test's database (or a transaction) takes its statements with it.
 */
const byHandle = new WeakMap<DbOrTx, Map<string, unknown>>()

export function builtOnce<T>(db: DbOrTx, name: string, build: () => T): T {
  let statements = byHandle.get(db)
  if (!statements) {
    statements = new Map()
    byHandle.set(db, statements)
  }
  let statement = statements.get(name) as T | undefined
  if (statement === undefined) {
    statement = build()
    statements.set(name, statement)
  }
  return statement
}
