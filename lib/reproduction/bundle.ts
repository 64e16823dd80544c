/**
 * The reproduction suite of GET /api/v1/reproductions (docs/releases.md#verification): the
 * tests of the organization's issues of one status (by default resolved), optionally only those
 * resolved in a given release or an earlier one, with a configuration and a reporter that posts
 * each result back. Page text enters only the tests themselves, which write-test.ts makes safe;
 * the other files hold our own values only (no issue titles).
 */
import { and, desc, eq, inArray, isNotNull, type SQL } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { type IssueStatus, issues } from '@/db/schema'
import type { Principal } from '@/lib/credentials/resolve-bearer'
import { InvalidInputError } from '@/lib/errors'
import { releasesUpTo } from '@/lib/releases/releases-up-to'
import {
  BUNDLE_MANIFEST,
  BUNDLE_REPORTER,
  bundleReadme,
  PLAYWRIGHT_CONFIG,
  verificationReporter,
} from './bundle-files'
import { getIssueReproduction } from './get-reproduction'

export const REPRODUCTIONS_PAGE = { default: 50, max: 100 }

export interface BundleFile {
  path: string
  content: string
}

export interface BundleIssue {
  issueId: string
  file: string
  status: IssueStatus
  resolvedInRelease: string | null
}

export interface ReproductionBundle {
  files: BundleFile[]
  issues: BundleIssue[]
  /** More issues matched than `limit`: the newest were taken. */
  truncated: boolean
}

export function unknownReleaseMessage(release: string): string {
  return `release ${JSON.stringify(release.slice(0, 200))} is not a release of this organization (GET /api/v1/releases lists them)`
}

/** The conditions for the issues of the suite; null when the release filter leaves none. */
async function issueFilter(
  db: DbOrTx,
  organizationId: string,
  status: IssueStatus,
  release: string | undefined,
): Promise<SQL | null> {
  const base = and(eq(issues.organizationId, organizationId), eq(issues.status, status))!
  if (release === undefined) return base
  // The fix releases these issues name: few, whatever the number of issues or releases.
  const named = await db
    .selectDistinct({ release: issues.resolvedInRelease })
    .from(issues)
    .where(and(base, isNotNull(issues.resolvedInRelease)))
  const versions = named.flatMap((row) => (row.release === null ? [] : [row.release]))
  const upTo = await releasesUpTo(db, organizationId, release, versions)
  if (upTo === null) throw new InvalidInputError(unknownReleaseMessage(release))
  return upTo.length === 0 ? null : and(base, inArray(issues.resolvedInRelease, upTo))!
}

export async function buildReproductionBundle(
  db: DbOrTx,
  principal: Pick<Principal, 'organizationId'>,
  options: { status: IssueStatus; release?: string; limit: number; apiBaseUrl: string },
): Promise<ReproductionBundle> {
  const where = await issueFilter(db, principal.organizationId, options.status, options.release)
  const rows = where
    ? await db
        .select({ id: issues.id, status: issues.status, resolvedInRelease: issues.resolvedInRelease })
        .from(issues)
        .where(where)
        .orderBy(desc(issues.createdAt), desc(issues.id))
        .limit(options.limit + 1)
    : []
  const chosen = rows.slice(0, options.limit)
  const specs: BundleFile[] = []
  const manifest: BundleIssue[] = []
  const taken = new Set<string>()
  // One at a time: each reads a trail, and a suite of 100 must not take 100 connections.
  for (const row of chosen) {
    const reproduction = await getIssueReproduction(db, principal, row.id)
    // Two ids may share their first 8 characters: the second file is named by the whole id.
    const file = taken.has(reproduction.filename) ? `issue-${row.id}.spec.ts` : reproduction.filename
    taken.add(file)
    specs.push({ path: file, content: reproduction.test })
    manifest.push({ issueId: row.id, file, status: row.status, resolvedInRelease: row.resolvedInRelease })
  }
  const files: BundleFile[] = [
    { path: 'README.md', content: bundleReadme(options.apiBaseUrl) },
    { path: 'playwright.config.ts', content: PLAYWRIGHT_CONFIG },
    { path: BUNDLE_REPORTER, content: verificationReporter(options.apiBaseUrl) },
    { path: BUNDLE_MANIFEST, content: `${JSON.stringify(manifest, null, 2)}\n` },
    ...specs,
  ]
  return { files, issues: manifest, truncated: rows.length > options.limit }
}
