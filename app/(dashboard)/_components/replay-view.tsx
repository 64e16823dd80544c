'use client'

import { type JSX, type RefObject, useCallback, useEffect, useRef, useState } from 'react'
import styles from './replay-player.module.css'

/** How the recorded page is drawn: scaled down to fit the player, or at its recorded size. */
export type Zoom = 'fit' | 'actual'

/** Where a link to a moment of the replay points: `?t=` is ms after the session started. */
export interface ReplayLink {
  /** Epoch ms `?t=` counts from (the session's start, as the session and issue pages read it). */
  startedAt: number
  /** The issue page also names the session (`?session=`); the session page does not. */
  session?: string
}

/** The page's address with the moment `at` (epoch ms) in the form the page opens at. */
export function momentUrl(href: string, link: ReplayLink, at: number): string {
  const url = new URL(href)
  url.hash = ''
  if (link.session) url.searchParams.set('session', link.session)
  url.searchParams.set('t', String(Math.max(0, Math.round(at - link.startedAt))))
  return url.toString()
}

/** The Fullscreen API on the player's own element, so the controls and panes come along. */
export function useFullscreen(target: RefObject<HTMLElement | null>) {
  const [active, setActive] = useState(false)
  const [available, setAvailable] = useState(false)
  useEffect(() => {
    setAvailable(document.fullscreenEnabled === true)
    const onChange = () => setActive(target.current !== null && document.fullscreenElement === target.current)
    document.addEventListener('fullscreenchange', onChange)
    return () => document.removeEventListener('fullscreenchange', onChange)
  }, [target])
  const toggle = useCallback(() => {
    // Refused (no user gesture, a frame without allowfullscreen): the button keeps its state.
    if (document.fullscreenElement) document.exitFullscreen().catch(() => undefined)
    else target.current?.requestFullscreen().catch(() => undefined)
  }, [target])
  return { active, available, toggle }
}

const CONFIRM_MS = 4000

/**
 * Copies the link to the moment shown. Where the clipboard is refused (permissions, an
 * insecure origin) the link is shown in a field, selected, for the user to copy.
 */
export function CopyMomentLink(props: { link: ReplayLink; at(): number; disabled: boolean }): JSX.Element {
  const { link, at, disabled } = props
  const [copied, setCopied] = useState(false)
  const [fallback, setFallback] = useState<string | null>(null)
  const fieldRef = useRef<HTMLInputElement>(null)
  useEffect(() => {
    if (!copied) return
    const timer = setTimeout(() => setCopied(false), CONFIRM_MS)
    return () => clearTimeout(timer)
  }, [copied])
  useEffect(() => {
    if (fallback === null) return
    fieldRef.current?.focus()
    fieldRef.current?.select()
  }, [fallback])
  const copy = async () => {
    const url = momentUrl(window.location.href, link, at())
    try {
      if (!navigator.clipboard) throw new Error('no clipboard')
      await navigator.clipboard.writeText(url)
      setFallback(null)
      setCopied(true)
    } catch {
      setCopied(false)
      setFallback(url)
    }
  }
  return (
    <span className={styles.share}>
      <button type="button" className="btn btn-small" disabled={disabled} onClick={copy}>
        Copy link to this moment
      </button>
      <span role="status" className={styles.copied} data-testid="replay-link-status">
        {copied ? 'Link copied' : ''}
      </span>
      {fallback !== null ? (
        <label className={styles.linkField}>
          <span>Copy this link:</span>
          <input
            ref={fieldRef}
            className="input"
            readOnly
            value={fallback}
            data-testid="replay-link"
            onFocus={(event) => event.currentTarget.select()}
          />
        </label>
      ) : null}
    </span>
  )
}
