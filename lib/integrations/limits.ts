/** Bounds of what an owner types when connecting an integration. */
export const INTEGRATION_LIMITS = {
  /** The database's own check (integrations_name_length). */
  name: 64,
  /** Linear API keys and GitHub tokens are well under this; anything longer is not one. */
  secret: 512,
  /** `owner/repo`: GitHub's own limits are 39 and 100 characters. */
  repository: 140,
  /** A Linear team key (ENG) or team id (a UUID). */
  team: 64,
  /** Active Slack integrations per organization (Linear and GitHub: one each, by index). */
  activeSlack: 5,
  /** Creations per organization per hour, revoked ones included, as for webhook endpoints. */
  creationsPerHour: 10,
} as const

/** How long one call to a provider may take before it counts as failed. */
export const PROVIDER_TIMEOUT_MS = 10_000
/** A 429 whose Retry-After is at most this is waited out once; a longer one is reported. */
export const MAX_RETRY_AFTER_SECONDS = 5
