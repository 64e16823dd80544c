/**
 * Typed domain errors. Domain code throws these; each surface (Data API, ingest, OAuth, MCP,
 * dashboard, CLI) maps them to its own answer in one place.
 */
export abstract class AppError extends Error {
  abstract readonly code: string
}

export class NotFoundError extends AppError {
  readonly code = 'not_found'
}

export class InvalidInputError extends AppError {
  readonly code = 'invalid_input'
}

/** Search query text that does not parse (docs/search.md#errors); `position` is its 0-based character. */
export class SearchQueryError extends AppError {
  readonly code = 'invalid_query'
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message)
  }
}

/**
 * A search that Postgres stopped at its statement timeout (docs/search.md#limits): the query is
 * valid, but matches so few sessions that finding them reads too many.
 */
export class SearchTimeoutError extends AppError {
  readonly code = 'search_timeout'
  constructor() {
    super('The search took too long; add a time range or a narrower condition')
  }
}

export class ConflictError extends AppError {
  readonly code = 'conflict'
}

export class ForbiddenError extends AppError {
  readonly code = 'forbidden'
}

/**
 * A provider the service called for the caller (Linear, GitHub) failed or refused; the message
 * says which and what to do, never the provider's own text or the credential used.
 */
export class ProviderError extends AppError {
  readonly code = 'provider_failed'
}

export class RateLimitedError extends AppError {
  readonly code = 'rate_limited'
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message)
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Ids come from users; a malformed one must be "not found", never a database error. */
export function isUuid(value: string): boolean {
  return UUID.test(value)
}

/** Postgres' unique_violation, whichever driver reported it. */
export function isUniqueViolation(error: unknown): boolean {
  let current: unknown = error
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    if ((current as { code?: unknown }).code === '23505') return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}

/** Missing, unknown, revoked or expired credentials; the message is what the caller sees. */
export class UnauthorizedError extends AppError {
  readonly code = 'unauthorized'
}

export class PayloadTooLargeError extends AppError {
  readonly code = 'payload_too_large'
}

export class UnsupportedMediaTypeError extends AppError {
  readonly code = 'unsupported_media_type'
}

export interface ValidationIssue {
  path: (string | number)[]
  message: string
  code: string
}

/** A request body that failed its schema; `details` lists every issue found. */
export class ValidationError extends AppError {
  readonly code = 'validation_failed'
  constructor(
    message: string,
    readonly details: ValidationIssue[],
  ) {
    super(message)
  }
}

/** A body that is not parseable at all (not JSON, bad gzip). */
export class MalformedBodyError extends AppError {
  readonly code = 'malformed_body'
}
