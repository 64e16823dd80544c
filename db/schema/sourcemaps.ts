import { bigint, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { id, ts } from './columns'
import { organizations } from './organizations'

/**
 * One uploaded source map of one release (docs/source-maps.md). The map itself lives in blob
 * storage under `blobKey`; this row says which minified file it describes, so a stack frame
 * finds it by the file's address or, when the bundler wrote one, by its debug ID.
 */
export const sourcemapFiles = pgTable(
  'sourcemap_files',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** The release the recorder reports in `metadata.release` (a git commit, a version). */
    release: text('release').notNull(),
    /**
     * The minified file's address as stack frames show it: a full URL
     * (`https://cdn.example/assets/app.js`) or `~/assets/app.js`, which matches that path on
     * any origin.
     */
    url: text('url').notNull(),
    /** The bundler's debug ID (lowercase UUID) from the map or the file's `//# debugId=`. */
    debugId: text('debug_id'),
    /** Where the map's JSON is stored; content-addressed, so a cache keyed by it never goes stale. */
    blobKey: text('blob_key').notNull(),
    /** Size of the stored map in bytes (uncompressed). */
    sizeBytes: integer('size_bytes').notNull(),
    /**
     * Bytes of heap the parsed map is expected to take, estimated at upload from its decoded
     * mappings (docs/source-maps.md#memory): the worker admits maps against its heap budget by
     * this figure, so one session's maps cannot exhaust it. Null for maps uploaded before the
     * estimate existed; those are estimated from sizeBytes.
     */
    heapEstimateBytes: bigint('heap_estimate_bytes', { mode: 'number' }),
    /** Uploads of the same release and address replace the row. */
    uploadedAt: ts('uploaded_at').notNull().defaultNow(),
    /**
     * The last upload, or the last day a session of the release was symbolicated with it
     * (touched at most once a day): retention counts from here, so a release still in use
     * keeps its maps however old they are.
     */
    lastUsedAt: ts('last_used_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('sourcemap_files_org_release_url_unique').on(t.organizationId, t.release, t.url),
    index('sourcemap_files_org_debug_idx').on(t.organizationId, t.debugId),
    index('sourcemap_files_used_idx').on(t.lastUsedAt),
  ],
)
