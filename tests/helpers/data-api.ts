import { GET as getInsights } from '@/app/api/v1/insights/route'
import { GET as getNotes, POST as postNote } from '@/app/api/v1/issues/[issueId]/notes/route'
import { GET as getReproduction } from '@/app/api/v1/issues/[issueId]/reproduction/route'
import { GET as getIssue, PATCH as patchIssue } from '@/app/api/v1/issues/[issueId]/route'
import { PUT as putTicket } from '@/app/api/v1/issues/[issueId]/ticket/route'
import { POST as postTickets } from '@/app/api/v1/issues/[issueId]/tickets/route'
import { POST as postVerification } from '@/app/api/v1/issues/[issueId]/verifications/route'
import { GET as getIssues } from '@/app/api/v1/issues/route'
import { GET as getReleaseHealth } from '@/app/api/v1/releases/[version]/route'
import { GET as getReleasesHealth, POST as postRelease } from '@/app/api/v1/releases/route'
import { GET as getReproductions } from '@/app/api/v1/reproductions/route'
import {
  DELETE as deleteSavedSearch,
  GET as getSavedSearch,
  PATCH as updateSavedSearch,
} from '@/app/api/v1/saved-searches/[savedSearchId]/route'
import { POST as createSavedSearch, GET as listSavedSearches } from '@/app/api/v1/saved-searches/route'
import { GET as getSession } from '@/app/api/v1/sessions/[sessionId]/route'
import {
  GET as getShareLinks,
  POST as postShareLink,
} from '@/app/api/v1/sessions/[sessionId]/share-links/route'
import { GET as getSessionTimeline } from '@/app/api/v1/sessions/[sessionId]/timeline/route'
import { GET as getSessions } from '@/app/api/v1/sessions/route'
import { DELETE as deleteShareLink } from '@/app/api/v1/share-links/[shareLinkId]/route'
import { GET as getSignals } from '@/app/api/v1/signals/route'
import { DELETE as deleteRelease, GET as getRelease } from '@/app/api/v1/sourcemaps/[release]/route'
import { GET as getReleases, POST as postSourcemaps } from '@/app/api/v1/sourcemaps/route'
import { Issue } from '@/lib/issues/views'

const BASE = 'http://localhost:3000'

export type Query = Record<string, string | number | undefined>

function url(path: string, query: Query = {}) {
  const u = new URL(path, BASE)
  for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v))
  return u
}

function headers(token: string | null, extra: Record<string, string> = {}) {
  return token ? { authorization: `Bearer ${token}`, ...extra } : extra
}

/** Calls the Data API route handlers with real Requests, as Next would. */
export const api = {
  listIssues: (token: string | null, query?: Query, extra?: Record<string, string>) =>
    getIssues(new Request(url('/api/v1/issues', query), { headers: headers(token, extra) })),
  getIssue: (token: string | null, issueId: string) =>
    getIssue(new Request(url(`/api/v1/issues/${encodeURIComponent(issueId)}`), { headers: headers(token) }), {
      params: Promise.resolve({ issueId }),
    }),
  patchIssue: (token: string | null, issueId: string, body: unknown) =>
    patchIssue(
      new Request(url(`/api/v1/issues/${encodeURIComponent(issueId)}`), {
        method: 'PATCH',
        headers: headers(token, { 'content-type': 'application/json' }),
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
      { params: Promise.resolve({ issueId }) },
    ),
  getReproduction: (token: string | null, issueId: string) =>
    getReproduction(
      new Request(url(`/api/v1/issues/${encodeURIComponent(issueId)}/reproduction`), {
        headers: headers(token),
      }),
      { params: Promise.resolve({ issueId }) },
    ),
  listSignals: (token: string | null, query?: Query) =>
    getSignals(new Request(url('/api/v1/signals', query), { headers: headers(token) })),
  listInsights: (token: string | null, query?: Query) =>
    getInsights(new Request(url('/api/v1/insights', query), { headers: headers(token) })),
  // Sessions (issue 18)
  listSessions: (token: string | null, query?: Query) =>
    getSessions(new Request(url('/api/v1/sessions', query), { headers: headers(token) })),
  getSession: (token: string | null, sessionId: string) =>
    getSession(
      new Request(url(`/api/v1/sessions/${encodeURIComponent(sessionId)}`), { headers: headers(token) }),
      { params: Promise.resolve({ sessionId }) },
    ),
  sessionTimeline: (token: string | null, sessionId: string, query?: Query) =>
    getSessionTimeline(
      new Request(url(`/api/v1/sessions/${encodeURIComponent(sessionId)}/timeline`, query), {
        headers: headers(token),
      }),
      { params: Promise.resolve({ sessionId }) },
    ),
  // Notes and the ticket link (issue 18)
  addNote: (token: string | null, issueId: string, body: unknown) =>
    postNote(write('POST', `/api/v1/issues/${encodeURIComponent(issueId)}/notes`, token, body), {
      params: Promise.resolve({ issueId }),
    }),
  listNotes: (token: string | null, issueId: string, query?: Query) =>
    getNotes(
      new Request(url(`/api/v1/issues/${encodeURIComponent(issueId)}/notes`, query), {
        headers: headers(token),
      }),
      { params: Promise.resolve({ issueId }) },
    ),
  putTicket: (token: string | null, issueId: string, body: unknown) =>
    putTicket(write('PUT', `/api/v1/issues/${encodeURIComponent(issueId)}/ticket`, token, body), {
      params: Promise.resolve({ issueId }),
    }),
  // Issue 22: a ticket created through the organization's Linear or GitHub integration.
  createTicket: (token: string | null, issueId: string, body: unknown) =>
    postTickets(write('POST', `/api/v1/issues/${encodeURIComponent(issueId)}/tickets`, token, body), {
      params: Promise.resolve({ issueId }),
    }),
  // Issue 36: verification by reproduction.
  postVerification: (token: string | null, issueId: string, body: unknown) =>
    postVerification(
      write('POST', `/api/v1/issues/${encodeURIComponent(issueId)}/verifications`, token, body),
      { params: Promise.resolve({ issueId }) },
    ),
  reproductions: (token: string | null, query?: Query) =>
    getReproductions(new Request(url('/api/v1/reproductions', query), { headers: headers(token) })),
  // Issue 37: share links.
  createShareLink: (token: string | null, sessionId: string, body: unknown) =>
    postShareLink(
      write('POST', `/api/v1/sessions/${encodeURIComponent(sessionId)}/share-links`, token, body),
      {
        params: Promise.resolve({ sessionId }),
      },
    ),
  listShareLinks: (token: string | null, sessionId: string) =>
    getShareLinks(
      new Request(url(`/api/v1/sessions/${encodeURIComponent(sessionId)}/share-links`), {
        headers: headers(token),
      }),
      { params: Promise.resolve({ sessionId }) },
    ),
  revokeShareLink: (token: string | null, shareLinkId: string) =>
    deleteShareLink(
      new Request(url(`/api/v1/share-links/${encodeURIComponent(shareLinkId)}`), {
        method: 'DELETE',
        headers: headers(token),
      }),
      { params: Promise.resolve({ shareLinkId }) },
    ),
}

/** Source maps (issue 19): the upload takes a prepared multipart body, as curl or fetch sends it. */
export const sourcemapsApi = {
  upload: (token: string | null, body: BodyInit, extra: Record<string, string> = {}) =>
    postSourcemaps(
      new Request(url('/api/v1/sourcemaps'), { method: 'POST', headers: headers(token, extra), body }),
    ),
  listReleases: (token: string | null, query?: Query) =>
    getReleases(new Request(url('/api/v1/sourcemaps', query), { headers: headers(token) })),
  getRelease: (token: string | null, release: string, query?: Query) =>
    getRelease(
      new Request(url(`/api/v1/sourcemaps/${encodeURIComponent(release)}`, query), {
        headers: headers(token),
      }),
      { params: Promise.resolve({ release }) },
    ),
  deleteRelease: (token: string | null, release: string) =>
    deleteRelease(
      new Request(url(`/api/v1/sourcemaps/${encodeURIComponent(release)}`), {
        method: 'DELETE',
        headers: headers(token),
      }),
      { params: Promise.resolve({ release }) },
    ),
}

/** Releases and their health (issue 36): the version goes URL-encoded in the path, as a client sends it. */
export const releasesApi = {
  list: (token: string | null, query?: Query) =>
    getReleasesHealth(new Request(url('/api/v1/releases', query), { headers: headers(token) })),
  get: (token: string | null, version: string) =>
    getReleaseHealth(
      new Request(url(`/api/v1/releases/${encodeURIComponent(version)}`), { headers: headers(token) }),
      { params: Promise.resolve({ version }) },
    ),
  declare: (token: string | null, body: unknown) =>
    postRelease(write('POST', '/api/v1/releases', token, body)),
}

const savedSearchPath = (id: string) => `/api/v1/saved-searches/${encodeURIComponent(id)}`
const savedSearchParams = (savedSearchId: string) => ({ params: Promise.resolve({ savedSearchId }) })

/** Saved searches (issue 37, docs/saved-searches.md). */
export const savedSearchesApi = {
  list: (token: string | null, query?: Query) =>
    listSavedSearches(new Request(url('/api/v1/saved-searches', query), { headers: headers(token) })),
  create: (token: string | null, body: unknown) =>
    createSavedSearch(write('POST', '/api/v1/saved-searches', token, body)),
  get: (token: string | null, id: string) =>
    getSavedSearch(new Request(url(savedSearchPath(id)), { headers: headers(token) }), savedSearchParams(id)),
  update: (token: string | null, id: string, body: unknown) =>
    updateSavedSearch(write('PATCH', savedSearchPath(id), token, body), savedSearchParams(id)),
  remove: (token: string | null, id: string) =>
    deleteSavedSearch(
      new Request(url(savedSearchPath(id)), { method: 'DELETE', headers: headers(token) }),
      savedSearchParams(id),
    ),
}

/** A write request with a JSON body; a string body is sent as it is (for broken JSON). */
function write(method: string, path: string, token: string | null, body: unknown) {
  return new Request(url(path), {
    method,
    headers: headers(token, { 'content-type': 'application/json' }),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

/**
 * What a write (PATCH, update_issue, a ticket link) answers of an issue, from GET's IssueDetail:
 * the detail's own fields (issue 36) left out, so a write's `{issue}` can be compared with GET's.
 */
export function withoutDetail(body: Record<string, unknown>): Record<string, unknown> {
  const issue = body.issue as Record<string, unknown> | undefined
  if (!issue) return body
  const kept = Object.fromEntries(Object.entries(issue).filter(([name]) => name in Issue.shape))
  return { ...body, issue: kept }
}
