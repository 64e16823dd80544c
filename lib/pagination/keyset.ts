import { type SQL, sql } from 'drizzle-orm'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'
import { decodeCursor, encodeCursor, type KeysetPosition } from './cursor'

export interface PageRequest {
  limit: number
  cursor?: string
  /** What the cursor is bound to: organization, endpoint and filters. */
  scope: string
}

export interface Page<T> {
  items: T[]
  nextCursor: string | null
}

/**
 * The condition "after this cursor" in `created_at desc, id desc` order, as one row-value
 * comparison that the (organization, created_at desc, id desc) index answers directly.
 */
export function afterCursor(request: PageRequest, createdAt: AnyPgColumn, id: AnyPgColumn): SQL | undefined {
  if (!request.cursor) return undefined
  const position = decodeCursor(request.cursor, request.scope)
  return sql`(${createdAt}, ${id}) < (${position.createdAt.toISOString()}::timestamptz, ${position.id}::uuid)`
}

/** Rows fetched with `limit + 1` become a page and the cursor of the next one. */
export function toPage<R extends KeysetPosition, T>(
  rows: R[],
  request: PageRequest,
  view: (row: R) => T,
): Page<T> {
  const hasMore = rows.length > request.limit
  const pageRows = hasMore ? rows.slice(0, request.limit) : rows
  const last = pageRows[pageRows.length - 1]
  return {
    items: pageRows.map(view),
    nextCursor:
      hasMore && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }, request.scope) : null,
  }
}
