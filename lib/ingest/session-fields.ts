import type { Viewport } from '@/db/schema'
import type { ReplayBatch } from './schema'

const MAX_TEXT = 2048

function text(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, MAX_TEXT) : null
}

/** What a batch tells about its session, in the session row's terms. */
export function sessionFields(batch: ReplayBatch, lastEventTimestamp: number) {
  const properties = batch.user.properties ?? null
  const viewport: Viewport | null = batch.page.viewport
    ? { width: batch.page.viewport.width, height: batch.page.viewport.height }
    : null
  return {
    startedAt: new Date(batch.session.startedAt),
    lastActivityAt: new Date(Math.max(batch.session.lastActivityAt, lastEventTimestamp)),
    entryUrl: batch.session.url.slice(0, MAX_TEXT),
    anonymousId: batch.user.anonymousId.slice(0, MAX_TEXT),
    userId: text(batch.user.id),
    userProperties: properties,
    userEmail: text(properties?.email),
    userName: text(properties?.name),
    userAgent: text(batch.metadata?.userAgent),
    language: text(batch.metadata?.language),
    viewport,
    // Kept by the session as its first batch that has one (docs/source-maps.md).
    release: batch.metadata?.release ?? null,
    debugIds: debugIdsOf(batch),
    degraded: batch.metadata?.degraded === true,
  }
}

/** The batch's debug IDs, null when it has none (the schema bounds them to MAX_DEBUG_IDS). */
function debugIdsOf(batch: ReplayBatch): Record<string, string> | null {
  const ids = batch.metadata?.debugIds
  return ids && Object.keys(ids).length > 0 ? ids : null
}
