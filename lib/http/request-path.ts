/**
 * The header proxy.ts sets on every page request to the path and query the browser asked for.
 * Layouts are not told their URL; the dashboard layout needs it to send a signed-out visitor
 * to sign-in and back to the same place. proxy.ts overwrites whatever a client sent under it.
 */
export const REQUEST_PATH_HEADER = 'x-replay-request-path'
