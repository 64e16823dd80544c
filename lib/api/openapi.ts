import { z } from 'zod'
import { ISSUE_STATUSES } from '@/db/schema'
import { AUDIT_ACTIONS } from '@/lib/audit/actions'
import { AUDIT_EVENTS_PAGE } from '@/lib/audit/list-audit-events'
import { AuditEvent } from '@/lib/audit/views'
import { ReplayBatch } from '@/lib/ingest/schema'
import { Insight } from '@/lib/insights/views'
import { Note } from '@/lib/issues/issue-notes'
import { Issue, IssueDetail, IssueListItem } from '@/lib/issues/views'
import { ERASURES_PAGE, ErasureView } from '@/lib/privacy/erasures'
import { ExportView } from '@/lib/privacy/export-view'
import { MAX_PATTERN_CHARS } from '@/lib/privacy/mask-patterns'
import { MAX_MASK_PATTERNS, MAX_MASK_SELECTORS } from '@/lib/privacy/mask-rules'
import { MAX_SELECTOR_CHARS } from '@/lib/privacy/mask-selectors'
import { PersonBody } from '@/lib/privacy/person-body'
import { RemaskingView } from '@/lib/privacy/remaskings'
import { RELEASE_HEALTH_PAGE } from '@/lib/releases/health'
import { Verification } from '@/lib/releases/verification-view'
import { ReleaseDetail, ReleaseList, Release as ReleaseView } from '@/lib/releases/views'
import { REPRODUCTIONS_PAGE } from '@/lib/reproduction/bundle'
import { Reproduction } from '@/lib/reproduction/views'
import { RETENTION_DAYS } from '@/lib/retention/set-retention'
import { SAVED_SEARCHES_PAGE } from '@/lib/saved-searches/saved-searches'
import { SavedSearch } from '@/lib/saved-searches/views'
import { ApiSessionDetails, SessionItem, TimelineWindow } from '@/lib/sessions/api-views'
import { SESSION_ITEMS_PAGE } from '@/lib/sessions/list-session-items'
import { TIMELINE_PAGE, TIMELINE_WINDOW_MS } from '@/lib/sessions/timeline-window'
import { MAX_START_AT_MS, SHARE_LINK_DAYS } from '@/lib/sharing/limits'
import { Signal } from '@/lib/signals/views'
import { SOURCEMAP_LIMITS } from '@/lib/sourcemaps/limits'
import { RELEASE_FILES_PAGE, RELEASES_PAGE } from '@/lib/sourcemaps/releases'
import { AddNoteBody } from './issue-notes'
import { LinkTicketBody } from './issue-ticket'
import { CreateTicketBody } from './issue-tickets'
import { UpdateIssueBody } from './issues'
import { DeclareReleaseBody } from './releases'
import { ReproductionBundleResponse } from './reproductions'
import { CreateSavedSearchBody, UpdateSavedSearchBody } from './saved-searches'
import { ReleaseFileSchema, ReleaseSummarySchema, StoredMapSchema } from './sourcemaps'
import { RecordVerificationBody } from './verifications'

/**
 * The OpenAPI 3.1 document of the Data API and the ingest API, generated from the zod
 * schemas the handlers use, so the document cannot drift from the code.
 */
const ErrorBody = z
  .object({
    error: z.string(),
    position: z.number().int().optional().meta({
      description: 'Only for a search query `q` that does not parse: the 0-based character of the fault',
    }),
  })
  .meta({ description: 'Every Data API error' })
const IngestValidationError = z.object({
  error: z.literal('Invalid replay batch'),
  details: z.array(
    z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string(), code: z.string() }),
  ),
})
const IngestError = z.object({ error: z.string(), requestId: z.string().optional() })
const Cursor = z.string().nullable().meta({ description: 'Opaque; pass back as `cursor` for the next page' })

/** A share link without its token (docs/sharing.md). */
const ShareLinkView = z.object({
  id: z.uuid(),
  sessionId: z.uuid(),
  startAtMs: z.number().int().nullable(),
  expiresAt: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
  state: z.enum(['active', 'expired', 'revoked']),
  createdBy: z.string().meta({ description: '`user:<id>`, `credential:<id>`, ... as in the audit trail' }),
})

const schemas = {
  // Saved searches (issue 37, docs/saved-searches.md)
  SavedSearch,
  SavedSearchResponse: z.object({ savedSearch: SavedSearch }),
  SavedSearchList: z.object({ savedSearches: z.array(SavedSearch), nextCursor: Cursor }),
  SavedSearchDeleted: z.object({ deleted: z.literal(true) }),
  CreateSavedSearchBody,
  UpdateSavedSearchBody,
  QueryError: z
    .object({
      error: z.string(),
      position: z.number().int().min(0).optional().meta({
        description: "Only when the query is at fault: the 0-based offset of the error in the query's text",
      }),
    })
    .meta({
      description: 'A refused body; a query not in the search language (docs/search.md) gives its position',
    }),
  // Exports of one person (issue 33, docs/privacy.md#exports)
  Export: ExportView,
  ExportResponse: z.object({ export: ExportView }),
  RequestExportBody: PersonBody,
  // Erasure of one person (issue 33, docs/privacy.md#erasure)
  Erasure: ErasureView,
  ErasureResponse: z.object({ erasure: ErasureView }),
  ErasureList: z.object({ erasures: z.array(ErasureView), nextCursor: Cursor }),
  RequestErasureBody: PersonBody,
  Issue,
  IssueDetail,
  IssueListItem,
  Signal,
  Insight,
  Error: ErrorBody,
  IssueList: z.object({ issues: z.array(IssueListItem), nextCursor: Cursor }),
  IssueResponse: z.object({ issue: Issue }),
  // Releases and verification (issue 36, docs/releases.md)
  IssueDetailResponse: z.object({ issue: IssueDetail }),
  Verification,
  VerificationResponse: z.object({ verification: Verification }),
  RecordVerificationBody,
  ReproductionBundle: ReproductionBundleResponse,
  SignalList: z.object({ signals: z.array(Signal), nextCursor: Cursor }),
  InsightList: z.object({ insights: z.array(Insight), nextCursor: Cursor }),
  UpdateIssueBody,
  ReplayBatch,
  IngestOk: z.object({
    ok: z.literal(true),
    mask: z
      .object({ selectors: z.array(z.string()) })
      .optional()
      .meta({
        description: "The organization's mask selectors, when it has any: the recorder masks them too",
      }),
  }),
  IngestValidationError,
  IngestError,
  // Sessions (issue 18)
  SessionItem,
  // The component keeps its published name.
  SessionDetails: ApiSessionDetails,
  SessionList: z.object({ sessions: z.array(SessionItem), nextCursor: Cursor }),
  SessionResponse: z.object({ session: ApiSessionDetails }),
  SessionTimeline: TimelineWindow,
  // Notes and the ticket link (issue 18)
  Note,
  NoteList: z.object({ notes: z.array(Note), nextCursor: Cursor }),
  NoteResponse: z.object({ note: Note }),
  AddNoteBody,
  LinkTicketBody,
  // Tickets created through an integration (issue 22)
  CreateTicketBody,
  // Reproductions (issue 18)
  Reproduction,
  ReproductionResponse: z.object({ reproduction: Reproduction }),
  // Source maps (issue 19)
  SourcemapUploadResponse: z.object({ release: z.string(), files: z.array(StoredMapSchema) }),
  SourcemapReleaseList: z.object({ releases: z.array(ReleaseSummarySchema), nextCursor: Cursor }),
  SourcemapReleaseFiles: z.object({
    release: z.string(),
    files: z.array(ReleaseFileSchema),
    nextCursor: Cursor,
  }),
  SourcemapReleaseDeleted: z.object({ release: z.string(), deletedFiles: z.number().int() }),
  // Releases and their health (issue 36, docs/releases.md)
  Release: ReleaseView,
  ReleaseDetail,
  ReleaseList,
  ReleaseResponse: z.object({ release: ReleaseView }),
  ReleaseDetailResponse: z.object({ release: ReleaseDetail }),
  DeclareReleaseBody,
  // The audit trail, retention and pins (issue 33, docs/privacy.md)
  AuditEvent,
  AuditEventList: z.object({ events: z.array(AuditEvent), nextCursor: Cursor }),
  RetentionResponse: z.object({
    retention: z.object({
      id: z.uuid(),
      retentionDays: z.number().int(),
      pinnedMaxDays: z.number().int().meta({ description: 'How long a pinned session is kept at most' }),
    }),
  }),
  SetRetentionBody: z.object({ days: z.number().int().min(RETENTION_DAYS.min).max(RETENTION_DAYS.max) }),
  SessionPinResponse: z.object({
    pin: z.object({
      sessionId: z.uuid(),
      pinnedAt: z.string().nullable(),
      pinnedBy: z.string().nullable().meta({ description: '`user:<id>`, `credential:<id>`, ... or null' }),
      keptUntil: z.string().meta({ description: 'When the retention sweep deletes the session' }),
    }),
  }),
  // Share links (issue 37, docs/sharing.md)
  ShareLinkResponse: z.object({ shareLink: ShareLinkView }),
  CreatedShareLinkResponse: z.object({
    shareLink: ShareLinkView.extend({
      url: z.string().meta({ description: 'The page; holds the token, shown only in this answer' }),
      embedUrl: z.string().meta({ description: 'The player alone, for an iframe on another site' }),
    }),
  }),
  ShareLinkList: z.object({ shareLinks: z.array(ShareLinkView) }),
  CreateShareLinkBody: z.object({
    expiresInDays: z
      .number()
      .int()
      .min(1)
      .max(SHARE_LINK_DAYS.max)
      .optional()
      .meta({ description: `Days until the link stops working; default ${SHARE_LINK_DAYS.default}` }),
    startAtMs: z
      .number()
      .int()
      .min(0)
      .max(MAX_START_AT_MS)
      .optional()
      .meta({ description: 'Open the replay this many ms after the session started' }),
  }),
  // Re-masking (issue 33, docs/privacy.md#re-masking)
  Remasking: RemaskingView,
  RemaskingResponse: z.object({ remasking: RemaskingView }),
  RequestRemaskingBody: z.object({
    selectors: z.array(z.string().max(MAX_SELECTOR_CHARS)).max(MAX_MASK_SELECTORS).optional(),
    patterns: z.array(z.string().max(MAX_PATTERN_CHARS)).max(MAX_MASK_PATTERNS).optional(),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    updateRecorder: z.boolean().optional().meta({
      description: "Also add the rules to the organization's mask settings (ingest and the recorder)",
    }),
  }),
}

/** Request bodies: their JSON Schema describes what a client sends (zod's input side). */
const REQUEST_BODIES: readonly string[] = [
  'CreateShareLinkBody',
  'ReplayBatch',
  'RequestExportBody',
  'RequestErasureBody',
  'UpdateIssueBody',
  'AddNoteBody',
  'LinkTicketBody',
  'CreateTicketBody',
  'SetRetentionBody',
  'RequestRemaskingBody',
  'DeclareReleaseBody',
  'RecordVerificationBody',
  'CreateSavedSearchBody',
  'UpdateSavedSearchBody',
]

type SchemaName = keyof typeof schemas
const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` })
const jsonContent = (name: SchemaName) => ({ 'application/json': { schema: ref(name) } })

const rateLimitHeaders = {
  'X-RateLimit-Limit': { schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { schema: { type: 'integer' } },
  'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Unix seconds' },
}

function dataApiErrors(scope: string) {
  return {
    '400': { description: 'Invalid parameter or body', content: jsonContent('Error') },
    '401': {
      description: 'Missing or invalid bearer token',
      headers: { 'WWW-Authenticate': { schema: { type: 'string', example: `Bearer scope="${scope}"` } } },
      content: jsonContent('Error'),
    },
    '403': { description: `Missing required scope: ${scope}`, content: jsonContent('Error') },
    '429': {
      description: 'Rate limit exceeded',
      headers: { 'Retry-After': { schema: { type: 'integer', minimum: 1 } }, ...rateLimitHeaders },
      content: jsonContent('Error'),
    },
  }
}

const limitParam = (max: number, fallback: number) => ({
  name: 'limit',
  in: 'query',
  schema: { type: 'integer', minimum: 1, maximum: max, default: fallback },
})
const cursorParam = { name: 'cursor', in: 'query', schema: { type: 'string' } }
const issueIdParam = {
  name: 'issueId',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
}

function listOperation(summary: string, scope: string, name: SchemaName, parameters: unknown[]) {
  return {
    summary,
    security: [{ bearer: [scope] }],
    parameters,
    responses: {
      '200': { description: 'A page', headers: rateLimitHeaders, content: jsonContent(name) },
      ...dataApiErrors(scope),
    },
  }
}

// Sessions (issue 18): the three read endpoints an agent uses to look at a replay.
const sessionIdParam = {
  name: 'sessionId',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
}
const queryParam = (
  name: string,
  description: string,
  schema: Record<string, unknown> = { type: 'string' },
) => ({
  name,
  in: 'query',
  description,
  schema,
})

function sessionOperation(summary: string, name: SchemaName, parameters: unknown[]) {
  return {
    summary,
    security: [{ bearer: ['read:service'] }],
    parameters: [sessionIdParam, ...parameters],
    responses: {
      '200': { description: 'The answer', headers: rateLimitHeaders, content: jsonContent(name) },
      '404': { description: 'Session not found (also for a malformed id)', content: jsonContent('Error') },
      ...dataApiErrors('read:service'),
    },
  }
}

const sessionPaths = {
  '/api/v1/sessions': {
    get: listOperation('List recorded sessions, newest first', 'read:service', 'SessionList', [
      limitParam(SESSION_ITEMS_PAGE.max, SESSION_ITEMS_PAGE.default),
      cursorParam,
      queryParam('userId', 'The user id the site identified the user with (exact)'),
      queryParam('userEmail', "The user's e-mail (exact, any case)"),
      queryParam('url', 'Contained in the entry URL or in any page the user visited'),
      queryParam('hasErrors', 'true: sessions with errors; false: analysed sessions without', {
        type: 'string',
        enum: ['true', 'false'],
      }),
      queryParam('issueId', 'Sessions in which this issue occurred', { type: 'string', format: 'uuid' }),
      queryParam('signalId', 'Sessions this signal matched', { type: 'string', format: 'uuid' }),
      queryParam('release', "Sessions of this release (exact), as the recorder's `release` option named it"),
      queryParam('from', 'Started at or after (ISO 8601 with a time zone)', { type: 'string' }),
      queryParam('to', 'Started at or before (ISO 8601 with a time zone)', { type: 'string' }),
      queryParam(
        'automation',
        "Automated traffic (reproduction runs, browsers driven by automation, bots) is left out by default: `include` adds it, `only` lists nothing else. Such sessions are never counted; each session's `automation` says why it is one",
        { type: 'string', enum: ['include', 'only'] },
      ),
      queryParam(
        'q',
        'A search by what happened (docs/search.md), e.g. `click.text = Pay then error within 60s`; at most 1000 characters. Each item then carries `moments`. A query that does not parse is a 400 whose body adds `position`, the 0-based character of the fault; one that runs past the 5 s statement timeout on Postgres is a 422 (narrow it: a time range or a session field)',
      ),
    ]),
  },
  '/api/v1/sessions/{sessionId}': {
    get: sessionOperation('Get one session with a summary of what happened', 'SessionResponse', []),
  },
  '/api/v1/sessions/{sessionId}/timeline': {
    get: sessionOperation("A window of the session's timeline", 'SessionTimeline', [
      queryParam(
        'around',
        'An ISO 8601 time, epoch milliseconds, or an issue id (its first occurrence in this session); without it, the whole session from its start',
      ),
      queryParam('windowMs', 'The span centred on `around`', {
        type: 'integer',
        minimum: 1,
        maximum: TIMELINE_WINDOW_MS.max,
        default: TIMELINE_WINDOW_MS.default,
      }),
      limitParam(TIMELINE_PAGE.max, TIMELINE_PAGE.default),
      cursorParam,
      queryParam('kinds', 'Comma-separated entry kinds to keep, e.g. error,request'),
    ]),
  },
}

// Source maps (issue 19): uploads for symbolication, and their management (docs/source-maps.md).
const MB = 1024 * 1024
const releaseParam = {
  name: 'release',
  in: 'path',
  required: true,
  schema: { type: 'string', maxLength: 200 },
}
const ok = (description: string, name: SchemaName) => ({
  description,
  headers: rateLimitHeaders,
  content: jsonContent(name),
})
const noMaps = { description: 'No source maps for this release', content: jsonContent('Error') }

const sourcemapPaths = {
  '/api/v1/sourcemaps': {
    get: listOperation(
      'Releases with source maps, most recently uploaded first (then by name), paged',
      'read:service',
      'SourcemapReleaseList',
      [limitParam(RELEASES_PAGE.max, RELEASES_PAGE.default), cursorParam],
    ),
    post: {
      summary: "Upload a release's source maps (and the minified files that pair them)",
      description:
        `multipart/form-data: \`release\`, optional \`urlPrefix\`, and one file part per map or minified file, ` +
        `its filename the file's relative path (\`.gz\` parts are decompressed). At most ${SOURCEMAP_LIMITS.maxFiles} ` +
        `files, ${SOURCEMAP_LIMITS.maxFileBytes / MB} MB per file and ${SOURCEMAP_LIMITS.maxRequestBytes / MB} MB per ` +
        'request, uncompressed; `Content-Encoding: gzip` is accepted. Nothing is stored unless every file is valid. ' +
        'Only maps are stored; an upload of the same release and address replaces the earlier one.',
      security: [{ bearer: ['write:sourcemaps'] }],
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['release', 'file'],
              properties: {
                release: { type: 'string', minLength: 1, maxLength: 200 },
                urlPrefix: {
                  type: 'string',
                  format: 'uri',
                  description: 'http(s) URL the files are served under',
                },
                file: { type: 'array', items: { type: 'string', format: 'binary' } },
              },
            },
          },
        },
      },
      responses: {
        '201': ok('The stored maps', 'SourcemapUploadResponse'),
        '404': { description: 'The organization no longer exists', content: jsonContent('Error') },
        '413': { description: 'A file or the request over its size limit', content: jsonContent('Error') },
        '415': {
          description: 'Not multipart/form-data, or an unsupported Content-Encoding',
          content: jsonContent('Error'),
        },
        ...dataApiErrors('write:sourcemaps'),
      },
    },
  },
  '/api/v1/sourcemaps/{release}': {
    get: {
      summary: "A release's source maps by address, paged",
      security: [{ bearer: ['read:service'] }],
      parameters: [releaseParam, limitParam(RELEASE_FILES_PAGE.max, RELEASE_FILES_PAGE.default), cursorParam],
      responses: {
        '200': ok("The release's maps", 'SourcemapReleaseFiles'),
        '404': noMaps,
        ...dataApiErrors('read:service'),
      },
    },
    delete: {
      summary: "Delete a release's source maps",
      security: [{ bearer: ['write:sourcemaps'] }],
      parameters: [releaseParam],
      responses: {
        '200': ok('Deleted', 'SourcemapReleaseDeleted'),
        '404': noMaps,
        ...dataApiErrors('write:sourcemaps'),
      },
    },
  },
}

// Releases and their health (issue 36, docs/releases.md).
const releasePaths = {
  '/api/v1/releases': {
    get: listOperation(
      "The organization's releases with their health figures, latest first in its order (`order`)",
      'read:service',
      'ReleaseList',
      [limitParam(RELEASE_HEALTH_PAGE.max, RELEASE_HEALTH_PAGE.default), cursorParam],
    ),
    post: {
      summary: 'Declare a release from CI, with its deploy time (which orders releases that are not semver)',
      description:
        'Uses the source-map upload scope (the CI release key). Without `deployedAt`, a new release is deployed now ' +
        'and an existing one keeps its place; `deployedAt` is at most 5 minutes ahead of the server clock.',
      security: [{ bearer: ['write:sourcemaps'] }],
      requestBody: { required: true, content: jsonContent('DeclareReleaseBody') },
      responses: {
        '201': ok('The release, new', 'ReleaseResponse'),
        '200': ok(
          'The release, already known (its deploy time updated when one was given)',
          'ReleaseResponse',
        ),
        ...dataApiErrors('write:sourcemaps'),
      },
    },
  },
  '/api/v1/releases/{version}': {
    get: {
      summary: "One release's health, its adoption over the last 30 days and its issues",
      security: [{ bearer: ['read:service'] }],
      parameters: [
        {
          name: 'version',
          in: 'path',
          required: true,
          description: 'The release name, URL-encoded',
          schema: { type: 'string', minLength: 1, maxLength: 200 },
        },
      ],
      responses: {
        '200': ok('The release', 'ReleaseDetailResponse'),
        '404': { description: 'Release not found', content: jsonContent('Error') },
        ...dataApiErrors('read:service'),
      },
    },
  },
}

// The audit trail, retention and pins (issue 33, docs/privacy.md#retention, #audit-trail).
const pinOperation = (summary: string) => ({
  summary,
  security: [{ bearer: ['write:issues'] }],
  parameters: [sessionIdParam],
  responses: {
    '200': ok('The pin as it now is', 'SessionPinResponse'),
    '404': { description: 'Session not found (also for a malformed id)', content: jsonContent('Error') },
    ...dataApiErrors('write:issues'),
  },
})

// Share links (issue 37, docs/sharing.md).
const shareLinkPaths = {
  '/api/v1/sessions/{sessionId}/share-links': {
    get: {
      summary: "A session's share links, newest first (never their tokens)",
      security: [{ bearer: ['read:service'] }],
      parameters: [sessionIdParam],
      responses: {
        '200': ok('The links', 'ShareLinkList'),
        '404': { description: 'Session not found (also for a malformed id)', content: jsonContent('Error') },
        ...dataApiErrors('read:service'),
      },
    },
    post: {
      summary: 'Create a link that shows the replay without an account, until it expires or is revoked',
      security: [{ bearer: ['write:issues'] }],
      parameters: [sessionIdParam],
      requestBody: { required: true, content: jsonContent('CreateShareLinkBody') },
      responses: {
        '201': ok('The link, with its address (shown only here)', 'CreatedShareLinkResponse'),
        '404': { description: 'Session not found (also for a malformed id)', content: jsonContent('Error') },
        ...dataApiErrors('write:issues'),
      },
    },
  },
  '/api/v1/share-links/{shareLinkId}': {
    delete: {
      summary: 'Revoke a share link: its pages answer as for an unknown link from now on',
      security: [{ bearer: ['write:issues'] }],
      parameters: [
        { name: 'shareLinkId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      ],
      responses: {
        '200': ok('The link as it now is', 'ShareLinkResponse'),
        '404': { description: 'Share link not found', content: jsonContent('Error') },
        ...dataApiErrors('write:issues'),
      },
    },
  },
}

const auditRetentionPaths = {
  '/api/v1/audit-events': {
    get: listOperation(
      "The organization's audit trail, newest first (kept 400 days)",
      'write:privacy',
      'AuditEventList',
      [
        limitParam(AUDIT_EVENTS_PAGE.max, AUDIT_EVENTS_PAGE.default),
        cursorParam,
        queryParam('action', 'Only entries of this action', { type: 'string', enum: AUDIT_ACTIONS }),
        queryParam('since', 'Only entries at or after this time (ISO 8601 with a time zone)'),
      ],
    ),
  },
  '/api/v1/retention': {
    get: {
      summary: 'How many days of replay data the organization keeps',
      security: [{ bearer: ['read:service'] }],
      responses: { '200': ok('The retention', 'RetentionResponse'), ...dataApiErrors('read:service') },
    },
    patch: {
      summary: 'Set how many days of replay data the organization keeps',
      security: [{ bearer: ['write:privacy'] }],
      requestBody: { required: true, content: jsonContent('SetRetentionBody') },
      responses: { '200': ok('The retention', 'RetentionResponse'), ...dataApiErrors('write:privacy') },
    },
  },
  '/api/v1/sessions/{sessionId}/pin': {
    put: pinOperation('Pin a session: keep it past retention, up to the pin maximum'),
    delete: pinOperation('Unpin a session: it follows retention again'),
  },
}

// Re-masking stored sessions (issue 33, docs/privacy.md#re-masking).
const remaskingPaths = {
  '/api/v1/remaskings': {
    post: {
      summary: 'Re-mask stored sessions by CSS selectors and text patterns (a background job)',
      security: [{ bearer: ['write:privacy'] }],
      requestBody: { required: true, content: jsonContent('RequestRemaskingBody') },
      responses: {
        '202': ok('The queued re-masking', 'RemaskingResponse'),
        ...dataApiErrors('write:privacy'),
      },
    },
  },
  '/api/v1/remaskings/{remaskingId}': {
    get: {
      summary: "A re-masking's status and what it changed",
      security: [{ bearer: ['write:privacy'] }],
      parameters: [
        { name: 'remaskingId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      ],
      responses: {
        '200': ok('The re-masking', 'RemaskingResponse'),
        '404': { description: 'Re-masking not found', content: jsonContent('Error') },
        ...dataApiErrors('write:privacy'),
      },
    },
  },
}

const exportPaths = {
  '/api/v1/exports': {
    post: {
      summary: "Export one person's data (access request): a bounded NDJSON file, kept 7 days",
      security: [{ bearer: ['write:privacy'] }],
      requestBody: { required: true, content: jsonContent('RequestExportBody') },
      responses: {
        '202': ok('Queued; poll GET /api/v1/exports/{exportId} until completed', 'ExportResponse'),
        ...dataApiErrors('write:privacy'),
      },
    },
  },
  '/api/v1/exports/{exportId}': {
    get: {
      summary: "An export's status, or with download=1 its NDJSON file",
      security: [{ bearer: ['write:privacy'] }],
      parameters: [
        { name: 'exportId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
        { name: 'download', in: 'query', schema: { type: 'string', enum: ['1'] } },
      ],
      responses: {
        '200': {
          description: 'The export; with download=1 the file, streamed as an attachment',
          content: {
            ...jsonContent('ExportResponse'),
            'application/x-ndjson': { schema: { type: 'string' } },
          },
        },
        '404': {
          description: 'Export not found (also for a malformed id), or expired and deleted',
          content: jsonContent('Error'),
        },
        '409': { description: 'download=1 before the export completed', content: jsonContent('Error') },
        ...dataApiErrors('write:privacy'),
      },
    },
  },
}

// Saved searches (issue 37, docs/saved-searches.md): read like sessions, changed with write:issues.
const savedSearchIdParam = {
  name: 'savedSearchId',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
}
const queryRefused = {
  description: 'The query is not in the search language (with its position), or another field is invalid',
  content: jsonContent('QueryError'),
}
const savedSearchNotFound = {
  description: 'Saved search not found (also for a malformed id)',
  content: jsonContent('Error'),
}
const savedSearchPaths = {
  '/api/v1/saved-searches': {
    get: listOperation("The organization's saved searches, newest first", 'read:service', 'SavedSearchList', [
      limitParam(SAVED_SEARCHES_PAGE.max, SAVED_SEARCHES_PAGE.default),
      cursorParam,
    ]),
    post: {
      summary: 'Save a search under a name, for every member of the organization',
      security: [{ bearer: ['write:issues'] }],
      requestBody: { required: true, content: jsonContent('CreateSavedSearchBody') },
      responses: {
        '201': ok('Saved', 'SavedSearchResponse'),
        ...dataApiErrors('write:issues'),
        '400': queryRefused,
        '409': { description: 'A saved search with this name already exists', content: jsonContent('Error') },
      },
    },
  },
  '/api/v1/saved-searches/{savedSearchId}': {
    get: {
      summary: 'One saved search',
      security: [{ bearer: ['read:service'] }],
      parameters: [savedSearchIdParam],
      responses: {
        '200': ok('The saved search', 'SavedSearchResponse'),
        '404': savedSearchNotFound,
        ...dataApiErrors('read:service'),
      },
    },
    patch: {
      summary: 'Rename it, change its query, or both',
      security: [{ bearer: ['write:issues'] }],
      parameters: [savedSearchIdParam],
      requestBody: { required: true, content: jsonContent('UpdateSavedSearchBody') },
      responses: {
        '200': ok('The saved search as it is now', 'SavedSearchResponse'),
        '404': savedSearchNotFound,
        ...dataApiErrors('write:issues'),
        '400': queryRefused,
        '409': { description: 'A saved search with this name already exists', content: jsonContent('Error') },
      },
    },
    delete: {
      summary: 'Delete it; refused while a signal or an alert rule filters by it',
      security: [{ bearer: ['write:issues'] }],
      parameters: [savedSearchIdParam],
      responses: {
        '200': ok('Deleted', 'SavedSearchDeleted'),
        '404': savedSearchNotFound,
        '409': {
          description: 'In use: the message names the signals and alert rules that filter by it',
          content: jsonContent('Error'),
        },
        ...dataApiErrors('write:issues'),
      },
    },
  },
}

const erasurePaths = {
  '/api/v1/erasures': {
    get: listOperation("The organization's erasures, newest first", 'write:privacy', 'ErasureList', [
      limitParam(ERASURES_PAGE.max, ERASURES_PAGE.default),
      cursorParam,
    ]),
    post: {
      summary: 'Erase one person: every session and what was derived from them, within 24 hours',
      security: [{ bearer: ['write:privacy'] }],
      requestBody: { required: true, content: jsonContent('RequestErasureBody') },
      responses: {
        '202': ok('Queued; poll GET /api/v1/erasures/{erasureId} for progress', 'ErasureResponse'),
        ...dataApiErrors('write:privacy'),
      },
    },
  },
  '/api/v1/erasures/{erasureId}': {
    get: {
      summary: "An erasure's status and counts",
      security: [{ bearer: ['write:privacy'] }],
      parameters: [
        { name: 'erasureId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      ],
      responses: {
        '200': ok('The erasure', 'ErasureResponse'),
        '404': { description: 'Erasure not found (also for a malformed id)', content: jsonContent('Error') },
        ...dataApiErrors('write:privacy'),
      },
    },
  },
}

export function buildOpenApiDocument(urls: { baseUrl: string; ingestUrl: string }) {
  const components = Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => {
      const { $schema: _ignored, ...json } = z.toJSONSchema(schema, {
        io: REQUEST_BODIES.includes(name) ? 'input' : 'output',
        unrepresentable: 'any',
      }) as Record<string, unknown>
      return [name, json]
    }),
  )
  return {
    openapi: '3.1.0',
    info: {
      title: 'Session Replay Issues API',
      version: '1.0.0',
      description: 'Data API (v1) and the replay ingest API (0.1.0).',
    },
    servers: [{ url: urls.baseUrl }],
    paths: {
      '/api/v1/issues': {
        get: listOperation('List issues, newest first', 'read:service', 'IssueList', [
          limitParam(200, 25),
          cursorParam,
          { name: 'status', in: 'query', schema: { type: 'string', enum: ISSUE_STATUSES } },
        ]),
      },
      '/api/v1/issues/{issueId}': {
        get: {
          summary: 'Get one issue, with its latest reproduction runs',
          security: [{ bearer: ['read:service'] }],
          parameters: [issueIdParam],
          responses: {
            '200': {
              description: 'The issue, with its occurrences from older releases and latest regression',
              headers: rateLimitHeaders,
              content: jsonContent('IssueDetailResponse'),
            },
            '404': {
              description: 'Issue not found (also for a malformed id)',
              content: jsonContent('Error'),
            },
            ...dataApiErrors('read:service'),
          },
        },
        patch: {
          summary: "Set an issue's status",
          description:
            'Resolving may name the release that contains the fix (inRelease) or the next release (inNextRelease); naming another one for a resolved issue changes only that (docs/releases.md#resolve-in-a-release).',
          security: [{ bearer: ['write:issues'] }],
          parameters: [issueIdParam],
          requestBody: { required: true, content: jsonContent('UpdateIssueBody') },
          responses: {
            '200': {
              description: 'The issue',
              headers: rateLimitHeaders,
              content: jsonContent('IssueResponse'),
            },
            '404': { description: 'Issue not found', content: jsonContent('Error') },
            ...dataApiErrors('write:issues'),
            '400': {
              description:
                'Invalid JSON, an invalid status, or inRelease / inNextRelease that are malformed, given together, given with another status than resolved, or name no release of the organization',
              content: jsonContent('Error'),
            },
          },
        },
      },
      // Notes and the ticket link (issue 18)
      '/api/v1/issues/{issueId}/notes': {
        get: {
          summary: "An issue's notes, newest first",
          security: [{ bearer: ['read:service'] }],
          parameters: [issueIdParam, limitParam(100, 25), cursorParam],
          responses: {
            '200': { description: 'A page', headers: rateLimitHeaders, content: jsonContent('NoteList') },
            '404': {
              description: 'Issue not found (also for a malformed id)',
              content: jsonContent('Error'),
            },
            ...dataApiErrors('read:service'),
          },
        },
        post: {
          summary: "Add a note to an issue's history (changes no status, sends no webhook)",
          security: [{ bearer: ['write:issues'] }],
          parameters: [issueIdParam],
          requestBody: { required: true, content: jsonContent('AddNoteBody') },
          responses: {
            '201': {
              description: 'The note',
              headers: rateLimitHeaders,
              content: jsonContent('NoteResponse'),
            },
            '404': { description: 'Issue not found', content: jsonContent('Error') },
            ...dataApiErrors('write:issues'),
          },
        },
      },
      '/api/v1/issues/{issueId}/ticket': {
        put: {
          summary:
            'Link the ticket that tracks an issue, as the dashboard does (status ticket_created unless resolved)',
          security: [{ bearer: ['write:issues'] }],
          parameters: [issueIdParam],
          requestBody: { required: true, content: jsonContent('LinkTicketBody') },
          responses: {
            '200': {
              description: 'The issue',
              headers: rateLimitHeaders,
              content: jsonContent('IssueResponse'),
            },
            '404': { description: 'Issue not found', content: jsonContent('Error') },
            '409': {
              description: 'A ticket is being created for the issue through an integration right now',
              content: jsonContent('Error'),
            },
            ...dataApiErrors('write:issues'),
          },
        },
      },
      // Issue 22: a ticket created in Linear or GitHub through the organization's integration.
      '/api/v1/issues/{issueId}/tickets': {
        post: {
          summary:
            "Create a Linear or GitHub issue for an issue through the organization's integration, and link it",
          description:
            'The issue moves to ticket_created (as when a ticket is linked). At most one ticket per issue: ' +
            'an issue with a ticket, or with a creation in progress, answers 409; so does a provider the ' +
            'organization has not connected, and a created ticket that could not be linked (the answer ' +
            'names it). A provider failure answers 502 with what to do; after a timeout or a 5xx, which ' +
            'are not retried, it says the ticket may have been created.',
          security: [{ bearer: ['write:issues'] }],
          parameters: [issueIdParam],
          requestBody: { required: true, content: jsonContent('CreateTicketBody') },
          responses: {
            '201': {
              description: 'The issue, with its new ticket',
              headers: rateLimitHeaders,
              content: jsonContent('IssueResponse'),
            },
            '404': { description: 'Issue not found', content: jsonContent('Error') },
            '409': {
              description:
                'The issue already has a ticket, a creation is in progress, the provider is not connected, or the created ticket could not be linked',
              content: jsonContent('Error'),
            },
            '502': { description: 'The provider failed or refused', content: jsonContent('Error') },
            ...dataApiErrors('write:issues'),
          },
        },
      },
      // Issue 18: an issue's reproduction.
      '/api/v1/issues/{issueId}/reproduction': {
        get: {
          summary: 'A Playwright test that reproduces the issue from its best recorded session',
          description:
            'Built from the session whose trail holds the failing moment with the fewest steps before it; ' +
            'an issue without a usable session still gets a test, built from its page, steps and evidence ' +
            '(`sessionId` null, said in `limitations`).',
          security: [{ bearer: ['read:service'] }],
          parameters: [issueIdParam],
          responses: {
            '200': {
              description: 'The reproduction',
              headers: rateLimitHeaders,
              content: jsonContent('ReproductionResponse'),
            },
            '404': {
              description: 'Issue not found (also for a malformed id)',
              content: jsonContent('Error'),
            },
            ...dataApiErrors('read:service'),
          },
        },
      },
      // Issue 36: verification by reproduction (docs/releases.md#verification).
      '/api/v1/issues/{issueId}/verifications': {
        post: {
          summary: "Record a run of the issue's reproduction against a deployment",
          description:
            "What the reproduction bundle's reporter sends for each test (runner playwright), and agents " +
            '(runner agent). A passed run sends the issue.verified webhook event. The release is not added ' +
            "to the organization's releases: a preview is not production.",
          security: [{ bearer: ['write:verifications'] }],
          parameters: [issueIdParam],
          requestBody: { required: true, content: jsonContent('RecordVerificationBody') },
          responses: {
            '201': {
              description: 'The run, recorded',
              headers: rateLimitHeaders,
              content: jsonContent('VerificationResponse'),
            },
            '404': {
              description: 'Issue not found (also for a malformed id)',
              content: jsonContent('Error'),
            },
            ...dataApiErrors('write:verifications'),
          },
        },
      },
      '/api/v1/reproductions': {
        get: {
          summary: 'A ready-to-run Playwright suite: one reproduction per issue, a config and a reporter',
          description:
            'Issues of one status (default resolved), newest first; with `release`, only those resolved in ' +
            'that release or an earlier one (docs/releases.md#order). The reporter posts each result to ' +
            'POST /api/v1/issues/{issueId}/verifications when REPRO_VERIFY_KEY is set. format=tgz answers ' +
            'the same files under reproductions/ as a gzipped tar.',
          security: [{ bearer: ['read:service'] }],
          parameters: [
            {
              name: 'status',
              in: 'query',
              schema: { type: 'string', enum: ISSUE_STATUSES, default: 'resolved' },
            },
            { name: 'release', in: 'query', schema: { type: 'string', maxLength: 200 } },
            limitParam(REPRODUCTIONS_PAGE.max, REPRODUCTIONS_PAGE.default),
            {
              name: 'format',
              in: 'query',
              schema: { type: 'string', enum: ['json', 'tgz'], default: 'json' },
            },
          ],
          responses: {
            '200': {
              description: 'The suite',
              headers: rateLimitHeaders,
              content: {
                ...jsonContent('ReproductionBundle'),
                'application/gzip': { schema: { type: 'string', format: 'binary' } },
              },
            },
            ...dataApiErrors('read:service'),
          },
        },
      },
      '/api/v1/signals': {
        get: listOperation('List signals, newest first', 'read:service', 'SignalList', [
          limitParam(200, 50),
          cursorParam,
        ]),
      },
      '/api/v1/insights': {
        get: listOperation('List insights, newest first', 'read:service', 'InsightList', [
          limitParam(100, 25),
          cursorParam,
        ]),
      },
      ...sessionPaths,
      ...sourcemapPaths,
      ...releasePaths,
      ...auditRetentionPaths,
      ...shareLinkPaths,
      ...erasurePaths,
      ...savedSearchPaths,
      ...exportPaths,
      ...remaskingPaths,
      '/api/sdk/replay': {
        servers: [{ url: urls.ingestUrl }],
        post: {
          summary: 'Send a batch of rrweb events (ingest API 0.1.0)',
          security: [{ ingestKey: [] }, { ingestKeyQuery: [] }],
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: ref('ReplayBatch') },
              'text/plain': { schema: ref('ReplayBatch') },
            },
          },
          responses: {
            '200': { description: 'Stored (also for a re-sent batch)', content: jsonContent('IngestOk') },
            '400': { description: 'Invalid replay batch', content: jsonContent('IngestValidationError') },
            '401': {
              description: 'Missing API key / Invalid or revoked API key',
              content: jsonContent('IngestError'),
            },
            '413': {
              description: 'Over 10 MiB of JSON or 5 MiB compressed',
              content: jsonContent('IngestError'),
            },
            '415': {
              description: 'Unsupported Content-Type or Content-Encoding',
              content: jsonContent('IngestError'),
            },
            '429': {
              description: 'Rate limit exceeded (100 per minute per key)',
              headers: { 'Retry-After': { schema: { type: 'integer', minimum: 1 } } },
              content: jsonContent('IngestError'),
            },
            '500': { description: 'Storage or server error', content: jsonContent('IngestError') },
          },
        },
      },
    },
    components: {
      schemas: components,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'svc_api_ key, svc_oat_ OAuth token or svc_mcp_ key (source map uploads: svc_api_ keys only)',
        },
        ingestKey: { type: 'apiKey', in: 'header', name: 'X-Service-Api-Key' },
        ingestKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
      },
    },
  }
}
