import { z } from 'zod'
import { ISSUE_STATUSES } from '@/db/schema'
import { getConfig } from '@/lib/config'
import { InvalidInputError } from '@/lib/errors'
import { MAX_RELEASE_LENGTH } from '@/lib/ingest/schema'
import { buildReproductionBundle, REPRODUCTIONS_PAGE } from '@/lib/reproduction/bundle'
import { BUNDLE_FOLDER, bundleTgz } from '@/lib/reproduction/bundle-tgz'
import { isStorableText, NOT_STORABLE } from '@/lib/validation'
import { parseIssueStatus, parseLimit } from './params'
import type { ApiRequest } from './request'

const FORMATS = ['json', 'tgz'] as const

/** The JSON answer, for the OpenAPI document. */
export const ReproductionBundleResponse = z.object({
  bundle: z.object({
    files: z.array(z.object({ path: z.string(), content: z.string() })).meta({
      description:
        'README.md, playwright.config.ts, verification-reporter.mjs, reproductions.json and one test per issue',
    }),
    issues: z.array(
      z.object({
        issueId: z.uuid(),
        file: z.string(),
        status: z.enum(ISSUE_STATUSES),
        resolvedInRelease: z.string().nullable(),
      }),
    ),
    truncated: z.boolean().meta({ description: 'More issues matched than `limit`; the newest were taken' }),
  }),
})

function parseRelease(value: string | null): string | undefined {
  if (value === null) return undefined
  if (value === '' || value.length > MAX_RELEASE_LENGTH)
    throw new InvalidInputError(`release must be 1 to ${MAX_RELEASE_LENGTH} characters`)
  // No release can be so named, and the database refuses a NUL in a query (a 500 otherwise).
  if (!isStorableText(value)) throw new InvalidInputError(`release ${NOT_STORABLE}`)
  return value
}

function parseFormat(value: string | null): (typeof FORMATS)[number] {
  if (value === null) return 'json'
  if ((FORMATS as readonly string[]).includes(value)) return value as (typeof FORMATS)[number]
  throw new InvalidInputError(`format must be one of: ${FORMATS.join(', ')}`)
}

/** GET /api/v1/reproductions: the suite as JSON, or as a .tgz to unpack and run. */
export async function reproductionBundleRequest({ db, principal, query }: ApiRequest<unknown>) {
  const status = query.get('status')
  const format = parseFormat(query.get('format'))
  const bundle = await buildReproductionBundle(db, principal, {
    status: status === null ? 'resolved' : parseIssueStatus(status),
    release: parseRelease(query.get('release')),
    limit: parseLimit(query.get('limit'), REPRODUCTIONS_PAGE),
    apiBaseUrl: getConfig().baseUrl,
  })
  if (format === 'json') return { bundle }
  const body = await bundleTgz(bundle.files)
  return new Response(new Uint8Array(body), {
    headers: {
      'Content-Type': 'application/gzip',
      'Content-Disposition': `attachment; filename="${BUNDLE_FOLDER}.tgz"`,
      'Content-Length': String(body.byteLength),
      'X-Content-Type-Options': 'nosniff',
      'X-Reproductions-Truncated': String(bundle.truncated),
    },
  })
}
