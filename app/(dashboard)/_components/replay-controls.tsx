'use client'

import type { JSX, KeyboardEvent, ReactNode, RefObject } from 'react'
import styles from './replay-player.module.css'
import { formatOffset, KIND_LABEL, type ReplayMarker } from './replay-time'
import type { Zoom } from './replay-view'

export const SPEEDS = [0.5, 1, 2, 4, 8] as const

// Page loads are in the list of moments; on the scrubber they would only crowd the rest.
const ON_SCRUBBER = new Set<ReplayMarker['kind']>(['error', 'network', 'click', 'rage', 'dead', 'issue'])

export interface ControlsProps {
  playing: boolean
  /** Milliseconds since the first event. */
  time: number
  total: number
  start: number
  speed: number
  skipInactive: boolean
  markers: ReplayMarker[]
  disabled: boolean
  helpRef: RefObject<HTMLDetailsElement | null>
  onToggle(): void
  onSeek(offset: number): void
  onSpeed(speed: number): void
  onSkipInactive(): void
  zoom: Zoom
  onZoom(): void
  /** Null where the browser offers no fullscreen (the button is left out). */
  fullscreen: boolean | null
  onFullscreen(): void
  /** The copy-link button, when the page can be opened at a moment. */
  share?: ReactNode
}

const SCRUB_STEP_MS = 5000
const SCRUB_PAGE_MS = 30_000

/**
 * The scrubber's keys move as the player's do (5 s, 30 s by page), not by the range's 0.1 s
 * step, which would take a keyboard user minutes to cross a session.
 */
function scrubKey(event: KeyboardEvent<HTMLInputElement>, time: number, total: number): number | null {
  switch (event.key) {
    case 'ArrowLeft':
    case 'ArrowDown':
      return time - SCRUB_STEP_MS
    case 'ArrowRight':
    case 'ArrowUp':
      return time + SCRUB_STEP_MS
    case 'PageDown':
      return time - SCRUB_PAGE_MS
    case 'PageUp':
      return time + SCRUB_PAGE_MS
    case 'Home':
      return 0
    case 'End':
      return total
    default:
      return null
  }
}

/** Play/pause, the scrubber with a mark per moment worth seeing, speed and skipping idle time. */
export function ReplayControls(props: ControlsProps): JSX.Element {
  const { playing, time, total, start, markers, disabled } = props
  const percent = (offset: number) => (total > 0 ? Math.min(100, Math.max(0, (offset / total) * 100)) : 0)
  return (
    <div className={styles.controls}>
      <div className={styles.buttons}>
        <button
          type="button"
          className="btn btn-small"
          disabled={disabled}
          onClick={props.onToggle}
          aria-keyshortcuts="Space"
        >
          {playing ? 'Pause' : 'Play'}
        </button>
        <span className={styles.clock} data-testid="replay-clock">
          {formatOffset(time)} / {formatOffset(total)}
        </span>
        <label className={styles.speed}>
          Speed{' '}
          <select
            value={props.speed}
            disabled={disabled}
            onChange={(event) => props.onSpeed(Number(event.target.value))}
          >
            {SPEEDS.map((speed) => (
              <option key={speed} value={speed}>
                {speed}×
              </option>
            ))}
          </select>
        </label>
        <label className={styles.skip}>
          <input
            type="checkbox"
            checked={props.skipInactive}
            disabled={disabled}
            onChange={props.onSkipInactive}
          />{' '}
          Skip inactivity
        </label>
        <button
          type="button"
          className="btn btn-small"
          aria-pressed={props.zoom === 'actual'}
          onClick={props.onZoom}
        >
          Actual size
        </button>
        {props.fullscreen === null ? null : (
          <button
            type="button"
            className="btn btn-small"
            aria-pressed={props.fullscreen}
            aria-keyshortcuts="F"
            onClick={props.onFullscreen}
          >
            Full screen
          </button>
        )}
        {props.share}
        <details className={styles.help} ref={props.helpRef}>
          <summary aria-keyshortcuts="Shift+?">Keys</summary>
          <ul>
            <li>
              <kbd>Space</kbd> play or pause
            </li>
            <li>
              <kbd>←</kbd> <kbd>→</kbd> back or forward 5 s
            </li>
            <li>
              <kbd>[</kbd> <kbd>]</kbd> slower or faster
            </li>
            <li>
              <kbd>F</kbd> full screen
            </li>
            <li>
              <kbd>?</kbd> this list
            </li>
          </ul>
        </details>
      </div>
      <div className={styles.scrubber} data-testid="replay-scrubber">
        <input
          type="range"
          className={styles.range}
          aria-label="Replay position"
          aria-valuetext={`${formatOffset(time)} of ${formatOffset(total)}`}
          min={0}
          max={Math.max(total, 1)}
          step={100}
          value={Math.min(time, total)}
          disabled={disabled}
          onChange={(event) => props.onSeek(Number(event.target.value))}
          onKeyDown={(event) => {
            const next = scrubKey(event, time, total)
            if (next === null || event.altKey || event.ctrlKey || event.metaKey) return
            event.preventDefault()
            props.onSeek(next)
          }}
        />
        <div className={styles.ticks}>
          {markers
            .filter((marker) => ON_SCRUBBER.has(marker.kind))
            .map((marker) => {
              const offset = marker.at - start
              const title = `${KIND_LABEL[marker.kind]} at ${formatOffset(offset)}: ${marker.label}`
              return (
                <button
                  key={`${marker.at}:${marker.kind}:${marker.label}`}
                  type="button"
                  className={styles.tick}
                  data-kind={marker.kind}
                  style={{ left: `${percent(offset)}%` }}
                  title={title}
                  aria-label={title}
                  // The list of moments is the keyboard's way to these; a tab stop each would be hundreds.
                  tabIndex={-1}
                  disabled={disabled}
                  onClick={() => props.onSeek(offset)}
                />
              )
            })}
        </div>
      </div>
    </div>
  )
}
