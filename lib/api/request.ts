import type { Db } from '@/db/client'
import type { Principal } from '@/lib/credentials/resolve-bearer'

/**
 * One Data API call as its handlers see it: the caller, the query, the path parameters and,
 * for writes, the parsed JSON body. The HTTP wrapper (lib/http/data-api.ts) builds it, so
 * these handlers never read a Request themselves.
 */
export interface ApiRequest<P> {
  db: Db
  principal: Principal
  query: URLSearchParams
  params: P
  /** The parsed JSON body of a route declared with `body: 'json'`; undefined otherwise. */
  body: unknown
}

/**
 * One field of a JSON body, its own (a `"__proto__"` key holds nothing); a body that is not a
 * JSON object has none. The domain function that takes it checks its type and value.
 */
export function bodyField(body: unknown, name: string): unknown {
  return body && typeof body === 'object' && !Array.isArray(body) && Object.hasOwn(body, name)
    ? (body as Record<string, unknown>)[name]
    : undefined
}
