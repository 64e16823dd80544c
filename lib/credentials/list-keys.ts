import { and, desc, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { type CredentialKind, credentials } from '@/db/schema'

export interface KeySummary {
  id: string
  type: CredentialKind
  name: string
  displayPrefix: string
  scopes: string[]
  createdAt: Date
  lastUsedAt: Date | null
  revokedAt: Date | null
}

export async function listKeys(
  db: DbOrTx,
  input: { organizationId: string; type?: CredentialKind },
): Promise<KeySummary[]> {
  const filter = input.type
    ? and(eq(credentials.organizationId, input.organizationId), eq(credentials.kind, input.type))
    : eq(credentials.organizationId, input.organizationId)
  return db
    .select({
      id: credentials.id,
      type: credentials.kind,
      name: credentials.name,
      displayPrefix: credentials.displayPrefix,
      scopes: credentials.scopes,
      createdAt: credentials.createdAt,
      lastUsedAt: credentials.lastUsedAt,
      revokedAt: credentials.revokedAt,
    })
    .from(credentials)
    .where(filter)
    .orderBy(desc(credentials.createdAt), desc(credentials.id))
}
