/** An issue's priorities, highest first. Client-safe vocabulary: the schema's column takes it from here. */
export const ISSUE_PRIORITIES = ['critical', 'high', 'medium', 'low'] as const
export type IssuePriority = (typeof ISSUE_PRIORITIES)[number]
