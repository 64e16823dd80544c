import {
  AppError,
  ConflictError,
  ForbiddenError,
  InvalidInputError,
  MalformedBodyError,
  NotFoundError,
  PayloadTooLargeError,
  ProviderError,
  RateLimitedError,
  SearchQueryError,
  SearchTimeoutError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '@/lib/errors'
import { INVALID_BATCH } from '@/lib/ingest/limits'
import { logger } from '@/lib/log'
import { InvalidClientError, OAuthError, TooManyRequestsError } from '@/lib/oauth/errors'

/**
 * The surfaces that answer errors over HTTP, each in its spec's shape (docs/errors.md). The
 * table lives outside lib/http because the MCP tool runner asks it too (which errors are the
 * caller's to read), and lib/ outside lib/http never imports lib/http.
 */
export type ErrorSurface = 'data-api' | 'ingest' | 'oauth' | 'mcp' | 'dashboard-api'

export interface ErrorAnswer {
  status: number
  body: unknown
  headers?: Record<string, string>
}

/** What a surface knows about the request that a cell may need. */
export interface ErrorContext {
  requestId: string
  /** Data API: the scope the route requires, named in its 401 challenge. */
  scope?: string
}

type ErrorClass<E extends Error> = abstract new (...args: never[]) => E
type Cell<E> = (error: E, ctx: ErrorContext) => Omit<ErrorAnswer, 'status'>
interface Row<E extends Error> {
  type: ErrorClass<E>
  status: (error: E) => number
  on: Partial<Record<ErrorSurface, Cell<E>>>
}

const row = <E extends Error>(
  type: ErrorClass<E>,
  status: number | ((error: E) => number),
  on: Row<E>['on'],
) => ({ type, status: typeof status === 'number' ? () => status : status, on }) as unknown as Row<Error>

const message: Cell<Error> = (error) => ({ body: { error: error.message } })
const retryAfter: Cell<RateLimitedError> = (error) => ({
  body: { error: error.message },
  headers: { 'Retry-After': String(error.retryAfterSeconds) },
})

/**
 * One row per error class, one cell per surface that answers it. A class a surface has no cell
 * for is, on that surface, a fault of ours: the surface's generic 500, logged once.
 */
const TABLE: Row<Error>[] = [
  row(UnauthorizedError, 401, {
    'data-api': (error, ctx) => ({
      body: { error: error.message },
      headers: { 'WWW-Authenticate': `Bearer scope="${ctx.scope}"` },
    }),
    ingest: message,
    'dashboard-api': message,
  }),
  row(ForbiddenError, 403, { 'data-api': message, 'dashboard-api': message }),
  row(SearchQueryError, 400, {
    'data-api': (error) => ({ body: { error: error.message, position: error.position } }),
    'dashboard-api': (error) => ({ body: { error: error.message, position: error.position } }),
  }),
  // 422, not 503: sent again unchanged it times out again; narrowed, it answers.
  row(SearchTimeoutError, 422, { 'data-api': message, 'dashboard-api': message }),
  row(InvalidInputError, 400, { 'data-api': message, 'dashboard-api': message }),
  row(ValidationError, 400, {
    ingest: (error) => ({ body: { error: INVALID_BATCH, details: error.details } }),
  }),
  row(MalformedBodyError, 400, {
    'data-api': message,
    ingest: (error) => ({
      body: { error: INVALID_BATCH, details: [{ path: [], message: error.message, code: 'invalid_json' }] },
    }),
  }),
  row(NotFoundError, 404, { 'data-api': message, 'dashboard-api': message }),
  // Dashboard server actions show the message; the Data API answers it where a route can
  // conflict (POST /api/v1/issues/{issueId}/tickets: the issue already has a ticket).
  row(ConflictError, 409, { 'data-api': message }),
  row(ProviderError, 502, { 'data-api': message, 'dashboard-api': message }),
  row(PayloadTooLargeError, 413, { 'data-api': message, ingest: message }),
  row(UnsupportedMediaTypeError, 415, { 'data-api': message, ingest: message }),
  row(RateLimitedError, 429, { 'data-api': retryAfter, ingest: retryAfter, 'dashboard-api': retryAfter }),
  // RFC 6749 §5.2 bodies; `WWW-Authenticate: Basic` when the client tried Basic (§5.2).
  row(OAuthError, (error) => error.status, {
    oauth: (error) => ({
      body: { error: error.error, error_description: error.message },
      headers: {
        ...(error instanceof InvalidClientError && error.usedBasic
          ? { 'WWW-Authenticate': 'Basic realm="oauth"' }
          : {}),
        ...(error instanceof TooManyRequestsError ? { 'Retry-After': String(error.retryAfterSeconds) } : {}),
      },
    }),
  }),
]

const GENERIC: Record<ErrorSurface, { body: (ctx: ErrorContext) => unknown; log: string }> = {
  'data-api': { body: () => ({ error: 'Internal server error' }), log: 'data API request failed' },
  ingest: {
    body: (ctx) => ({ error: 'Internal server error', requestId: ctx.requestId }),
    log: 'ingest request failed',
  },
  oauth: {
    body: () => ({ error: 'server_error', error_description: 'Internal server error' }),
    log: 'OAuth request failed',
  },
  mcp: {
    body: () => ({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }),
    log: 'MCP request failed',
  },
  'dashboard-api': { body: () => ({ error: 'Internal server error' }), log: 'dashboard API request failed' },
}

const rowOf = (error: unknown) => TABLE.find((r) => error instanceof r.type)

/**
 * The answer `surface` gives for `error`: its table cell, or the generic 500 — the one place
 * an unexpected error is logged, with the request id, so a client's X-Request-Id finds it.
 */
export function errorAnswer(error: unknown, surface: ErrorSurface, ctx: ErrorContext): ErrorAnswer {
  const found = rowOf(error)
  const cell = found?.on[surface]
  if (found && cell) return { status: found.status(error as Error), ...cell(error as Error, ctx) }
  logUnexpected(error, GENERIC[surface].log, { requestId: ctx.requestId })
  return { status: 500, body: GENERIC[surface].body(ctx) }
}

/**
 * Whether the error is one of the table's, whose message is written for the caller: surfaces
 * that only relay a message (MCP tool results, dashboard server actions) relay these.
 */
export function isPublicError(error: unknown): error is AppError {
  return error instanceof AppError && rowOf(error) !== undefined
}

/** One error line for a fault of ours, carrying the request id from the log context or `fields`. */
export function logUnexpected(error: unknown, msg: string, fields: Record<string, unknown> = {}): void {
  logger.error({ err: error, ...fields }, msg)
}
