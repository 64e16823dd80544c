/**
 * How long a share link works (docs/sharing.md#expiry): a week unless asked otherwise, never
 * more than 30 days, so a link pasted somewhere public stops working on its own.
 */
export const SHARE_LINK_DAYS = { default: 7, max: 30 } as const

/** The largest `startAtMs` (ten digits, as the dashboard's `?t=` reads). */
export const MAX_START_AT_MS = 9_999_999_999

export const INVALID_EXPIRY = `expiresInDays must be a whole number of days from 1 to ${SHARE_LINK_DAYS.max}`
export const INVALID_START_AT = `startAtMs must be a whole number of milliseconds from 0 to ${MAX_START_AT_MS}`
export const SHARE_LINK_NOT_FOUND = 'Share link not found'
