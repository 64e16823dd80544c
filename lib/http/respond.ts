import { randomUUID } from 'node:crypto'
import { type ErrorContext, type ErrorSurface, errorAnswer } from '@/lib/error-table'

/** Every answer of ours carries a request id: the handle between a client's report and our logs. */
export function newRequestId(): string {
  return randomUUID()
}

/** A JSON answer that no cache keeps (per-credential data). */
export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  const merged = new Headers(headers)
  merged.set('Content-Type', 'application/json; charset=utf-8')
  merged.set('Cache-Control', 'no-store')
  return new Response(JSON.stringify(body), { status, headers: merged })
}

export function rateLimitHeaders(result: {
  limit: number
  remaining: number
  reset: number
}): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(result.limit),
    'X-RateLimit-Remaining': String(Math.max(0, result.remaining)),
    'X-RateLimit-Reset': String(Math.ceil(result.reset / 1000)),
  }
}

/** A thrown error as `surface` answers it (lib/error-table.ts), as JSON that no cache keeps. */
export function errorResponse(error: unknown, surface: ErrorSurface, ctx: ErrorContext): Response {
  const answer = errorAnswer(error, surface, ctx)
  return json(answer.body, answer.status, answer.headers)
}
