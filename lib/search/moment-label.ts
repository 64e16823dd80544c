import { cutText, type TrailEntry, type TrailTarget } from '@/lib/analysis/trail'

/** Longest label of a moment; the entry's full text is in the session's timeline. */
export const MOMENT_LABEL_MAX = 200

function target(t: TrailTarget): string {
  const words = t.name || t.text || t.testId || t.selector
  return words ? `${t.role ?? t.tag} "${words}"` : t.role || t.tag
}

/**
 * One line saying what the moment was. An input's label names the field only: what was typed
 * is never shown by search, masked or not.
 */
export function momentLabel(entry: TrailEntry): string {
  const text = (() => {
    switch (entry.kind) {
      case 'navigation':
        return entry.url
      case 'click':
        return `${target(entry.target)}${entry.count > 1 ? ` ×${entry.count}` : ''}`
      case 'input':
        return target(entry.target)
      case 'console':
        return `${entry.level}: ${entry.message}`
      case 'error':
        return entry.message
      case 'request':
        return `${entry.method} ${entry.url} → ${entry.status ?? (entry.failed ? 'failed' : 'no answer')}`
      case 'rage_click':
        return `${target(entry.target)} ×${entry.count}`
      case 'dead_click':
        return target(entry.target)
      case 'custom':
        return entry.tag
    }
  })()
  return cutText(text.replace(/\s+/g, ' ').trim(), MOMENT_LABEL_MAX)
}
