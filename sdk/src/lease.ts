import type { KeyValueStore } from './storage'

const LEASE_PREFIX = 'svc_replay:lease:'

/**
 * Detects a tab whose sessionStorage was copied from a live one (duplicated tab, window.open):
 * both would then share a window id, a session and its sequence counter, and the server would
 * keep only one of two batches that claim the same sequence. Each live page holds a lease on
 * its window id in localStorage, renewed by its flush timer and released on pagehide, so a
 * reload (the old page is gone) is told apart from a copy (the old page is still alive).
 */
export class WindowLease {
  private readonly loadId: string

  constructor(
    private readonly device: KeyValueStore,
    private readonly now: () => number,
    newId: () => string,
    /** A lease not renewed for this long belongs to a page that died without pagehide. */
    private readonly staleAfterMs: number,
  ) {
    this.loadId = newId()
  }

  /** Whether another live page holds this window id. */
  heldByAnother(windowId: string): boolean {
    const text = this.device.getItem(LEASE_PREFIX + windowId)
    if (!text) return false
    try {
      const lease = JSON.parse(text) as { loadId?: unknown; at?: unknown }
      return (
        lease.loadId !== this.loadId &&
        typeof lease.at === 'number' &&
        this.now() - lease.at < this.staleAfterMs
      )
    } catch {
      return false
    }
  }

  renew(windowId: string): void {
    this.device.setItem(LEASE_PREFIX + windowId, JSON.stringify({ loadId: this.loadId, at: this.now() }))
  }

  release(windowId: string): void {
    const text = this.device.getItem(LEASE_PREFIX + windowId)
    if (text?.includes(this.loadId)) this.device.removeItem(LEASE_PREFIX + windowId)
  }
}
