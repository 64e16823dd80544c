/**
 * An issue's statuses (the Data API's enum values; labels.ts says how they read). Client-safe
 * vocabulary: the database schema's column and every form and parser take the list from here.
 */
export const ISSUE_STATUSES = ['unresolved', 'ticket_created', 'transient', 'resolved'] as const
export type IssueStatus = (typeof ISSUE_STATUSES)[number]
