/**
 * The dashboard's Content-Security-Policy. Scripts run only from this origin or with the
 * per-request nonce that Next puts on its own inline scripts ('strict-dynamic' lets those load
 * their chunks). Styles and images are looser on purpose: the replay player rebuilds customers'
 * pages, whose inlined CSS, images and fonts come from their own hosts; none of that can run
 * script, because script-src still holds and the replay iframe is sandboxed by rrweb.
 */
export function contentSecurityPolicy(input: {
  nonce: string
  dev: boolean
  /** Who may frame the page: nobody, except a share link's embed (docs/sharing.md#embedding). */
  frameAncestors?: string
}): string {
  const directives = [
    "default-src 'self'",
    // Dev mode evaluates source maps and hot updates with eval.
    `script-src 'self' 'nonce-${input.nonce}' 'strict-dynamic'${input.dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline' https: http:",
    "img-src 'self' data: blob: https: http:",
    "font-src 'self' data: https: http:",
    "media-src 'self' data: blob: https: http:",
    `connect-src 'self'${input.dev ? ' ws: wss:' : ''}`,
    "frame-src 'self' blob:",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    `frame-ancestors ${input.frameAncestors ?? "'none'"}`,
    "form-action 'self'",
  ]
  return directives.join('; ')
}
