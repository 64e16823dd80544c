import type { Viewport } from '@/db/schema'
import { notAfterReceipt } from './clock-skew'
import type { ReplayBatch } from './schema'

const MAX_TEXT = 2048

function text(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, MAX_TEXT) : null
}

/**
 * What a batch tells about its session, in the session row's terms. Its times are the
 * browser's, clamped to the server's clock at `receivedAt` (clock-skew.ts): a session dated in
 * the future would otherwise outlive retention and sort first wherever sessions are listed.
 */
export function sessionFields(batch: ReplayBatch, lastEventTimestamp: number, receivedAt = Date.now()) {
  const properties = batch.user.properties ?? null
  const viewport: Viewport | null = batch.page.viewport
    ? { width: batch.page.viewport.width, height: batch.page.viewport.height }
    : null
  return {
    startedAt: new Date(notAfterReceipt(batch.session.startedAt, receivedAt)),
    lastActivityAt: new Date(
      notAfterReceipt(Math.max(batch.session.lastActivityAt, lastEventTimestamp), receivedAt),
    ),
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
