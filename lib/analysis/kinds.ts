/**
 * The kinds of finding session analysis makes, and so the kinds an issue can be about: the one
 * list the database enum, the issue vocabulary (lib/issues/kinds.ts) and the dashboard derive
 * from. Pure constants, so client components and the analysis worker can import it.
 */
export const FINDING_KINDS = [
  'js_error',
  'console_error',
  'network_error',
  'rage_click',
  'dead_click',
] as const
