import type { RateLimitRule } from './types'

const MINUTE = 60
const HOUR = 60 * MINUTE

/**
 * Every rate-limit policy of the service, in one place (docs/errors.md lists them). `name`
 * namespaces the counters, so renaming one resets it; the spec fixes the ingest and Data API
 * figures, the others are ours.
 */
export const RATE_LIMITS = {
  /** The spec: 100 batches a minute per ingest key (counted by the key's hash). */
  ingest: { name: 'ingest', limit: 100, windowSeconds: MINUTE },
  /**
   * Lookups of ingest keys not recently seen to work, per client address. A page's visitors
   * share its key, which stays in the recent-key cache while anyone uses it, so real traffic
   * rarely pays; someone rotating made-up keys pays for each one.
   */
  ingestKeyLookupsPerAddress: { name: 'ingest-lookup-ip', limit: 60, windowSeconds: MINUTE },
  /**
   * Presented ingest keys that turned out not to work, from all addresses together (counted by
   * the configured limiter: per process in memory, across instances with Upstash or Redis).
   * Once spent, lookups of keys not recently seen to work wait, whoever asks.
   */
  ingestKeyMisses: { name: 'ingest-key-misses', limit: 600, windowSeconds: MINUTE },
  /** The spec's Data API limits per token (per OAuth client for OAuth tokens); MCP tool calls spend the same. */
  dataRead: { name: 'data-read', limit: 300, windowSeconds: MINUTE },
  dataWrite: { name: 'data-write', limit: 60, windowSeconds: MINUTE },
  /**
   * Registration is open to anyone (RFC 7591 without an initial access token), so each
   * address may register a bounded number of clients. 20 an hour covers a developer
   * restarting MCP clients all afternoon; the spec leaves the number open.
   */
  oauthRegisterPerAddress: { name: 'oauth-register-ip', limit: 20, windowSeconds: HOUR },
  /**
   * And the whole installation a bounded number: many addresses (a botnet, or clients that all
   * look alike behind a misconfigured proxy) cannot fill the clients table faster than 1,000 an
   * hour. Legitimate registrations are one per MCP client set-up, far below that.
   */
  oauthRegisterAll: { name: 'oauth-register-all', limit: 1000, windowSeconds: HOUR },
  // One account from one address: slows guessing a password. One address: slows spraying many
  // accounts. Both are keyed on the caller's own address, so a stranger cannot spend them for
  // someone else; they refuse outright.
  signInPerAccountAndAddress: { name: 'signin-account-ip', limit: 10, windowSeconds: 15 * MINUTE },
  signInPerAddress: { name: 'signin-ip', limit: 50, windowSeconds: 15 * MINUTE },
  signUpPerAddress: { name: 'signup-ip', limit: 10, windowSeconds: HOUR },
  /**
   * Failed sign-ins at one account from anywhere: only counted, never refused (a refusal would
   * let anyone lock the owner out); lib/auth/sign-in-rate.ts turns the count into a delay.
   */
  signInAccountFailures: { name: 'signin-account-failures', limit: 1_000_000, windowSeconds: 15 * MINUTE },
  // Webhook test sends: the spec leaves the figures open; enough to debug a receiver, too few to flood one.
  webhookTestPerEndpoint: { name: 'webhook-test-endpoint', limit: 5, windowSeconds: MINUTE },
  webhookTestPerOrganization: { name: 'webhook-test-org', limit: 20, windowSeconds: HOUR },
  /**
   * A share link's replay (docs/sharing.md) read by anyone who has the link, per address: a
   * player loads its events once per page, so 30 a minute is generous for people and slows
   * anyone guessing tokens or pulling one replay in a loop.
   */
  shareEventsPerAddress: { name: 'share-events-ip', limit: 30, windowSeconds: MINUTE },
  /** The health check's probe of the limiter: a counter that never refuses. */
  healthProbe: { name: 'health', limit: 1_000_000, windowSeconds: MINUTE },
} as const satisfies Record<string, RateLimitRule>

/** The Data API budget a request or an MCP tool call spends. */
export const DATA_API_BUDGETS = { read: RATE_LIMITS.dataRead, write: RATE_LIMITS.dataWrite } as const
export type DataApiBudget = keyof typeof DATA_API_BUDGETS
