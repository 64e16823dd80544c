/** What replaces a secret value, in bodies, headers and URLs. */
export const REDACTED = '[redacted]'
