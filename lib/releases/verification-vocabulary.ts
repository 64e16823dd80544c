// Client-safe (the issue page shows these): no database or server code here.

/** A reproduction run's outcome: `passed` means the recorded failure no longer happens. */
export const VERIFICATION_STATUSES = ['passed', 'failed'] as const
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number]

/** Who ran it: the bundle's Playwright reporter in CI, or an agent through MCP or the Data API. */
export const VERIFICATION_RUNNERS = ['playwright', 'agent'] as const
export type VerificationRunner = (typeof VERIFICATION_RUNNERS)[number]
