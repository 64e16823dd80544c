import { sql } from 'drizzle-orm'
import { check, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { createdAt, id, updatedAt } from './columns'
import { organizations, users } from './organizations'

/**
 * A named search (docs/saved-searches.md), shared by every member of the organization. It holds
 * the query's text as written in the search language (docs/search.md), checked when it is saved;
 * signals and alert rules may use it as their filter.
 */
export const savedSearches = pgTable(
  'saved_searches',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    query: text('query').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Names are how people pick one in a form: two that differ only in case would look alike.
    uniqueIndex('saved_searches_org_name_unique').on(t.organizationId, sql`lower(${t.name})`),
    index('saved_searches_org_created_idx').on(
      t.organizationId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    check('saved_searches_name_length', sql`char_length(${t.name}) between 1 and 100`),
    check('saved_searches_query_length', sql`char_length(${t.query}) between 1 and 1000`),
  ],
)
