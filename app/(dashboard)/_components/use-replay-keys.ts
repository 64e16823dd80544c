'use client'

import { useEffect, useRef } from 'react'

export interface ReplayKeyActions {
  toggle(): void
  /** Moves by `ms` (negative: back). */
  step(ms: number): void
  /** One speed slower (-1) or faster (1). */
  speed(direction: -1 | 1): void
  help(): void
  fullscreen(): void
}

/** Typing somewhere must never drive the replay; a focused button keeps Space for itself. */
function ownsKey(target: EventTarget | null, key: string): boolean {
  if (!(target instanceof HTMLElement)) return false
  if (target.isContentEditable) return true
  if (target.closest('input, textarea, select')) return true
  // The recorded page at actual size scrolls with the arrow keys while its box has focus.
  if (key.startsWith('Arrow') && target.closest('[data-replay-viewport]')) return true
  return key === ' ' && target.closest('button, summary, a[href]') !== null
}

/** Runs the action bound to `key`; false when the key is not one of the player's. */
function act(actions: ReplayKeyActions, key: string, stepMs: number): boolean {
  switch (key) {
    case ' ':
    case 'k':
      actions.toggle()
      return true
    case 'ArrowLeft':
      actions.step(-stepMs)
      return true
    case 'ArrowRight':
      actions.step(stepMs)
      return true
    case '[':
      actions.speed(-1)
      return true
    case ']':
      actions.speed(1)
      return true
    case 'f':
      actions.fullscreen()
      return true
    case '?':
      actions.help()
      return true
    default:
      return false
  }
}

/**
 * The player's keys on the whole page: Space play/pause, ←/→ 5 s, [ ] speed, F full screen, ?
 * the list of keys. Left alone with a modifier (browser shortcuts) or while focus is in a form field.
 */
export function useReplayKeys(enabled: boolean, actions: ReplayKeyActions, stepMs: number): void {
  const latest = useRef(actions)
  latest.current = actions
  useEffect(() => {
    if (!enabled) return
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return
      if (ownsKey(event.target, event.key)) return
      if (!act(latest.current, event.key, stepMs)) return
      event.preventDefault()
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [enabled, stepMs])
}
