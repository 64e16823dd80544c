import { SCOPES } from '@/lib/credentials/scopes'

/** What a client may ask for at authorize; the metadata documents list only `read:service`. */
export const SUPPORTED_SCOPES: readonly string[] = [SCOPES.read, SCOPES.writeIssues]
export const DEFAULT_SCOPE = SCOPES.read

/** Space-separated scope string → its distinct values, in the order given (RFC 6749 §3.3). */
export function parseScope(value: string | null | undefined): string[] {
  return [...new Set((value ?? '').split(' ').filter(Boolean))]
}

/** One spelling per set of scopes (supported order), so consents compare as strings. */
export function formatScope(scopes: readonly string[]): string {
  const known = SUPPORTED_SCOPES.filter((s) => scopes.includes(s))
  const other = scopes.filter((s) => !SUPPORTED_SCOPES.includes(s)).sort()
  return [...known, ...other].join(' ')
}

export function isSupportedScope(scopes: readonly string[]): boolean {
  return scopes.length > 0 && scopes.every((s) => SUPPORTED_SCOPES.includes(s))
}

export function isSubset(scopes: readonly string[], of: readonly string[]): boolean {
  return scopes.every((s) => of.includes(s))
}
