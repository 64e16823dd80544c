/**
 * Where to go after signing in: only a same-origin relative path, never another site
 * (`//evil.example`, `/\evil.example` and absolute URLs fall back to the dashboard).
 */
export function safeCallbackPath(value: string | undefined | null): string {
  if (!value || typeof value !== 'string') return '/'
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/'
  // Control characters (CR/LF above all) never belong in a path we redirect to.
  if ([...value].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) return '/'
  try {
    const parsed = new URL(value, 'http://service.invalid')
    if (parsed.origin !== 'http://service.invalid') return '/'
    const path = `${parsed.pathname}${parsed.search}${parsed.hash}`
    // Normalising can make a new network-path reference: `/.//evil.example` → `//evil.example`.
    if (path.startsWith('//') || path.startsWith('/\\')) return '/'
    return path
  } catch {
    return '/'
  }
}
