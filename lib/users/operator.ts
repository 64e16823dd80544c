import { eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { users } from '@/db/schema'
import { NotFoundError } from '@/lib/errors'
import { parseInput } from '@/lib/validation'
import { Email } from './schemas'

/**
 * Grants or revokes the instance operator role: whoever runs the installation and may change
 * any organization's plan. Revoking the last operator is allowed; the CLI grants it again.
 */
export async function setInstanceOperator(
  db: DbOrTx,
  input: { email: string; operator: boolean },
): Promise<{ id: string; email: string; isOperator: boolean }> {
  const email = parseInput(Email, input.email)
  const [row] = await db
    .update(users)
    .set({ isOperator: input.operator })
    .where(eq(users.email, email))
    .returning({ id: users.id, email: users.email, isOperator: users.isOperator })
  if (!row) throw new NotFoundError(`User not found: ${email}`)
  return row
}
