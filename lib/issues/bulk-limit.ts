/** One transaction holds a row lock per issue: a bound keeps it short. */
export const BULK_STATUS_MAX = 100
