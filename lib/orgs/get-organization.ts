import { eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { organizations } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'

export async function getOrganization(db: DbOrTx, id: string) {
  if (!isUuid(id)) throw new NotFoundError(`Organization not found: ${id}`)
  const [row] = await db.select().from(organizations).where(eq(organizations.id, id))
  if (!row) throw new NotFoundError(`Organization not found: ${id}`)
  return row
}
