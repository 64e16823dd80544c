'use client'

import 'rrweb-player/dist/style.css'
import { type JSX, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react'
import type { ReplayLog } from '@/lib/sessions/replay-log'
import { canvasReplayPlugin, REPLAY_PIXEL_BUDGET } from './replay-canvas'
import { ReplayControls, SPEEDS } from './replay-controls'
import { type Loaded, loadEvents, recordedAspect, recordedSize } from './replay-events'
import { ReplayPanes } from './replay-panes'
import styles from './replay-player.module.css'
import { activeTabAt, splitTabs } from './replay-tabs'
import type { ReplayMarker } from './replay-time'
import { CopyMomentLink, type ReplayLink, useFullscreen, type Zoom } from './replay-view'
import { useReplayKeys } from './use-replay-keys'

export type { ReplayMarker } from './replay-time'
export type { ReplayLink } from './replay-view'

/**
 * What we use of rrweb-player. Its typings leave out the Svelte component's own `$set` and
 * `$destroy`, which it has at run time (rrweb-player 2.x is a Svelte 4 component). Its own
 * controller is hidden (`showController: false`) but still runs: it keeps the clock and sends
 * the `ui-update-*` events our controls follow.
 */
interface PlayerInstance {
  goto(timeOffset: number, play?: boolean): void
  toggle(): void
  setSpeed(speed: number): void
  toggleSkipInactive(): void
  addEventListener(event: string, handler: (detail: unknown) => unknown): void
  triggerResize(): void
  $set(props: { width: number; height: number }): void
  $destroy(): void
}

type State = 'loading' | 'ready' | 'error' | 'empty'

const CONTROLS_HEIGHT = 90
// In full screen the controls (and their wrapping on a narrow screen) and the padding.
const FULLSCREEN_CHROME = 150
const MIN_STAGE_HEIGHT = 200
const STEP_MS = 5000
// The clock shown re-renders the controls and panes; four times a second reads as smooth.
const TICK_MS = 250

/** In time order; a marker repeated exactly (same moment, kind and label) tells nothing new. */
function uniqueMarkers(markers: ReplayMarker[]): ReplayMarker[] {
  const seen = new Set<string>()
  return [...markers]
    .sort((a, b) => a.at - b.at)
    .filter((marker) => {
      const key = `${marker.at}:${marker.kind}:${marker.label}`
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
}

/**
 * rrweb replays the recorded page's focus events by focusing elements in its iframe, which
 * takes the keyboard away from this page (and its keys): hand it back. Nobody types into a
 * replay, so focus inside it is never the user's.
 */
function releaseFocus(stage: HTMLElement): void {
  const active = document.activeElement
  if (active instanceof HTMLElement && stage.contains(active)) active.blur()
}

/**
 * Fit: the recorded page scaled down to the player's width (and the window's height), as
 * rrweb-player never scales up. Actual size: the recorded viewport at 100 %, scrolled inside
 * its box.
 */
/**
 * rrweb's iframe, in the inert stage, also out of the tab order and named (for the tools that
 * list frames); a replay's frames are created once, with the player.
 */
function markFrame(stage: HTMLElement): void {
  for (const frame of stage.querySelectorAll('iframe')) {
    frame.tabIndex = -1
    frame.title = 'Recorded page (replay)'
  }
}

function stageSize(
  width: number,
  aspect: number,
  view: { zoom: Zoom; fullscreen: boolean; natural: { width: number; height: number } | null },
) {
  if (view.zoom === 'actual' && view.natural) return { ...view.natural }
  const room = view.fullscreen
    ? window.innerHeight - FULLSCREEN_CHROME
    : Math.round(window.innerHeight * 0.7) - CONTROLS_HEIGHT
  const limit = Math.max(MIN_STAGE_HEIGHT, room)
  return {
    width: Math.floor(width),
    height: Math.max(MIN_STAGE_HEIGHT, Math.min(limit, Math.round(width * aspect))),
  }
}

/**
 * A session's replay with our own controls (play, scrubber with the moments marked, speed,
 * skip inactivity, keys) and DevTools-style panes: the moments, the console and the network,
 * each following playback and moving the replay when an entry is clicked. The events come from
 * the dashboard's events endpoint; rrweb-player is loaded in the browser only.
 */
export function ReplayPlayer(
  props: (
    | { sessionId: string; shareToken?: never }
    /** A share link's page plays the link's events (docs/sharing.md) and names no session. */
    | { shareToken: string; sessionId?: never }
  ) & {
    /** Epoch ms: the replay starts paused at this moment. */
    openAt?: number
    markers?: ReplayMarker[]
    /** The console and network panes; undefined leaves them out (null: the log could not be read). */
    log?: ReplayLog | null
    autoPlay?: boolean
    /** Offers "Copy link to this moment"; left out where the page cannot be opened at a moment. */
    link?: ReplayLink
  },
): JSX.Element {
  const { sessionId, shareToken, openAt, autoPlay = false, log, link } = props
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' })
  const [attempt, setAttempt] = useState(0)
  // The events are in, but rrweb-player (loaded on demand) has not drawn them yet.
  const [mounted, setMounted] = useState(false)
  const [time, setTime] = useState(0)
  const [playing, setPlaying] = useState(autoPlay)
  const [speed, setSpeed] = useState(1)
  const [skipInactive, setSkipInactive] = useState(true)
  // Canvases left undrawn because the replay's canvases exceed REPLAY_PIXEL_BUDGET together.
  const [canvasesSkipped, setCanvasesSkipped] = useState(0)
  const rootRef = useRef<HTMLDivElement>(null)
  const stageRef = useRef<HTMLDivElement>(null)
  const viewportRef = useRef<HTMLElement>(null)
  const [zoom, setZoom] = useState<Zoom>('fit')
  const fullscreen = useFullscreen(rootRef)
  // Read by the player's resize without re-creating the player.
  const viewRef = useRef({ zoom, fullscreen: fullscreen.active })
  viewRef.current = { zoom, fullscreen: fullscreen.active }
  const resizeRef = useRef<(() => void) | null>(null)
  const describedBy = useId()
  const helpRef = useRef<HTMLDetailsElement>(null)
  const playerRef = useRef<PlayerInstance | null>(null)
  const timeRef = useRef(0)
  const markers = useMemo(() => uniqueMarkers(props.markers ?? []), [props.markers])
  // A visit of several tabs: one tab replays at a time, the one the person was in.
  const tabView = useMemo(
    () => (loaded.state === 'ready' ? splitTabs(loaded.events, loaded.start, loaded.end) : null),
    [loaded],
  )
  const [shownTab, setShownTab] = useState<string | null>(null)
  const tabViewRef = useRef(tabView)
  tabViewRef.current = tabView
  // The tab followed last: a tab picked by hand stays until the person moves to another.
  const followedTabRef = useRef<string | null>(null)
  // Where a switch to another tab's replay picks up: the same moment, playing or not.
  const resumeRef = useRef<{ offset: number; play: boolean } | null>(null)
  const playingRef = useRef(playing)
  playingRef.current = playing

  useEffect(() => {
    followedTabRef.current = null
    resumeRef.current = null
    setShownTab(tabView ? activeTabAt(tabView, tabView.tabs[0]!.events[0]!.timestamp) : null)
  }, [tabView])

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` changes only to fetch again (Retry)
  useEffect(() => {
    const controller = new AbortController()
    setLoaded({ state: 'loading' })
    loadEvents(
      shareToken !== undefined ? { shareToken } : { sessionId: sessionId ?? '' },
      controller.signal,
    ).then(setLoaded, () => {
      // Aborted because the component unmounted or the session changed: nothing to show.
    })
    return () => controller.abort()
  }, [sessionId, shareToken, attempt])

  const start = loaded.state === 'ready' ? loaded.start : null
  const total = loaded.state === 'ready' ? loaded.end - loaded.start : 0

  // The exact time goes on the element at once (tests and tools read it); React hears of it
  // only when the shown clock would change, not on every animation frame.
  const follow = useCallback((offset: number, force = false) => {
    timeRef.current = offset
    rootRef.current?.setAttribute('data-time', String(Math.round(offset)))
    setTime((shown) => (force || Math.abs(shown - offset) >= TICK_MS ? offset : shown))
    const view = tabViewRef.current
    if (!view) return
    const active = activeTabAt(view, view.tabs[0]!.events[0]!.timestamp + offset)
    if (active === followedTabRef.current) return
    followedTabRef.current = active
    setShownTab((shown) => {
      if (shown !== active) resumeRef.current = { offset, play: playingRef.current }
      return active
    })
  }, [])
  const pickTab = useCallback((id: string) => {
    setShownTab((shown) => {
      if (shown !== id) resumeRef.current = { offset: timeRef.current, play: playingRef.current }
      return id
    })
  }, [])

  useEffect(() => {
    if (loaded.state !== 'ready') return
    const stage = stageRef.current
    const viewport = viewportRef.current
    if (!stage || !viewport) return
    const { start: first, end } = loaded
    // Every tab's events are framed by the visit's start and end: offsets mean the same moment.
    const tab = tabView?.tabs.find((candidate) => candidate.id === shownTab)
    if (tabView && !tab) return
    const events = tab ? tab.events : loaded.events
    const resume = resumeRef.current
    resumeRef.current = null
    let disposed = false
    let player: PlayerInstance | null = null
    let observer: ResizeObserver | null = null
    const onBlur = () => requestAnimationFrame(() => releaseFocus(stage))
    const aspect = recordedAspect(events)
    const natural = recordedSize(events)
    const sizeNow = () => stageSize(viewport.clientWidth, aspect, { ...viewRef.current, natural })
    setCanvasesSkipped(0)
    import('rrweb-player').then(
      ({ default: Player }) => {
        if (disposed) return
        const size = sizeNow()
        player = new Player({
          target: stage,
          props: {
            events,
            ...size,
            autoPlay: false,
            skipInactive: true,
            showController: false,
            // Canvas frames are drawn by this page; UNSAFE_replayCanvas stays off (replay-canvas.ts).
            plugins: [
              canvasReplayPlugin(undefined, undefined, (skipped) => {
                if (!disposed) setCanvasesSkipped(skipped.canvases)
              }),
            ],
          },
        }) as unknown as PlayerInstance
        playerRef.current = player
        player.addEventListener('ui-update-current-time', (detail) => {
          const payload = (detail as { payload?: unknown } | undefined)?.payload
          if (typeof payload === 'number') follow(payload)
        })
        player.addEventListener('ui-update-player-state', (detail) => {
          const payload = (detail as { payload?: unknown } | undefined)?.payload
          if (typeof payload === 'string') setPlaying(payload === 'playing')
        })
        const opened = openAt === undefined ? 0 : Math.min(Math.max(0, openAt - first), end - first)
        const offset = resume ? resume.offset : opened
        player.goto(offset, resume ? resume.play : autoPlay)
        follow(offset, true)
        setMounted(true)
        markFrame(stage)
        let shown = size
        const resize = (force: boolean) => {
          const next = sizeNow()
          if (!player || next.width <= 0) return
          if (!force && next.width === shown.width && next.height === shown.height) return
          shown = next
          player.$set(next)
          player.triggerResize()
        }
        // Forced: rrweb-player puts back its own size when full screen ends.
        resizeRef.current = () => requestAnimationFrame(() => resize(true))
        observer = new ResizeObserver(() => resize(false))
        observer.observe(viewport)
        // The window loses focus when rrweb focuses an element inside its iframe.
        window.addEventListener('blur', onBlur)
        releaseFocus(stage)
      },
      () => {
        if (!disposed)
          setLoaded({
            state: 'error',
            message: 'The replay player could not be loaded. Reload the page to retry.',
          })
      },
    )
    return () => {
      disposed = true
      window.removeEventListener('blur', onBlur)
      observer?.disconnect()
      resizeRef.current = null
      player?.$destroy()
      playerRef.current = null
      setMounted(false)
      stage.replaceChildren()
    }
  }, [loaded, tabView, shownTab, openAt, autoPlay, follow])

  const seek = useCallback(
    (offset: number) => {
      const player = playerRef.current
      if (!player) return
      const clamped = Math.min(Math.max(0, offset), total)
      player.goto(clamped)
      follow(clamped, true)
      if (stageRef.current) releaseFocus(stageRef.current)
    },
    [total, follow],
  )
  const changeSpeed = useCallback((next: number) => {
    setSpeed(next)
    playerRef.current?.setSpeed(next)
  }, [])

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new zoom or screen is what resizes
  useEffect(() => {
    resizeRef.current?.()
  }, [zoom, fullscreen.active])

  const state: State = loaded.state === 'ready' && !mounted ? 'loading' : loaded.state
  const ready = state === 'ready'
  useReplayKeys(
    ready,
    {
      toggle: () => playerRef.current?.toggle(),
      step: (ms) => seek(timeRef.current + ms),
      speed: (direction) => {
        const index = SPEEDS.indexOf(speed as (typeof SPEEDS)[number]) + direction
        const next = SPEEDS[Math.min(Math.max(index, 0), SPEEDS.length - 1)]
        if (next !== undefined) changeSpeed(next)
      },
      help: () => {
        if (helpRef.current) helpRef.current.open = !helpRef.current.open
      },
      fullscreen: fullscreen.toggle,
    },
    STEP_MS,
  )

  return (
    <div
      className={styles.player}
      data-testid="replay-player"
      data-state={state}
      data-playing={playing ? 'true' : 'false'}
      // With data-time, the moment shown (epoch ms): the session page's Share control reads it.
      data-start={start ?? undefined}
      ref={rootRef}
    >
      <div className={styles.layout}>
        <div className={styles.screen} data-testid="replay-screen">
          {/* The recorded page is a picture of someone else's page: inert, so neither Tab nor a
              replayed focus event can enter it; the box names it and, at actual size, scrolls. */}
          {tabView && ready ? (
            <fieldset className={styles.tabs} data-testid="replay-tabs">
              <legend className="visually-hidden">Tabs of this visit</legend>
              {tabView.tabs.map((tab) => {
                const active = activeTabAt(tabView, (start ?? 0) + time) === tab.id
                return (
                  <button
                    key={tab.id}
                    type="button"
                    className={styles.tab}
                    data-testid="replay-tab"
                    data-active={active ? 'true' : 'false'}
                    aria-pressed={shownTab === tab.id}
                    title={active ? 'The visitor is in this tab now' : 'Show this tab'}
                    onClick={() => pickTab(tab.id)}
                  >
                    {tab.label}
                    {active ? <span className="visually-hidden"> (active)</span> : null}
                  </button>
                )
              })}
            </fieldset>
          ) : null}
          <figure
            className={styles.viewport}
            ref={viewportRef}
            data-replay-viewport
            data-zoom={zoom}
            aria-labelledby={describedBy}
            tabIndex={zoom === 'actual' && ready ? 0 : undefined}
            hidden={loaded.state !== 'ready'}
          >
            <figcaption id={describedBy} className="visually-hidden">
              Recorded page, replayed (a picture: play it with the controls below)
            </figcaption>
            <div className={styles.stage} ref={stageRef} inert />
          </figure>
          {loaded.state === 'ready' ? (
            <ReplayControls
              playing={playing}
              time={time}
              total={total}
              start={loaded.start}
              speed={speed}
              skipInactive={skipInactive}
              markers={markers}
              disabled={!ready}
              helpRef={helpRef}
              onToggle={() => playerRef.current?.toggle()}
              onSeek={seek}
              onSpeed={changeSpeed}
              onSkipInactive={() => {
                setSkipInactive((on) => !on)
                playerRef.current?.toggleSkipInactive()
              }}
              zoom={zoom}
              onZoom={() => setZoom((now) => (now === 'fit' ? 'actual' : 'fit'))}
              fullscreen={fullscreen.available ? fullscreen.active : null}
              onFullscreen={fullscreen.toggle}
              share={
                link ? (
                  <CopyMomentLink link={link} at={() => loaded.start + timeRef.current} disabled={!ready} />
                ) : undefined
              }
            />
          ) : null}
          {canvasesSkipped > 0 ? (
            <p className={styles.note} role="status" data-testid="replay-canvas-note">
              {canvasesSkipped === 1 ? '1 canvas' : `${canvasesSkipped} canvases`} of this recording{' '}
              {canvasesSkipped === 1 ? 'is' : 'are'} not drawn: the replay draws at most{' '}
              {Math.round(REPLAY_PIXEL_BUDGET / 1e6)} million canvas pixels in all.
            </p>
          ) : null}
          {state === 'loading' ? (
            <p className={styles.message} role="status">
              Loading the recording…
            </p>
          ) : null}
          {state === 'error' ? (
            <div className={styles.message} role="alert">
              <p>{loaded.state === 'error' ? loaded.message : null}</p>
              <button className="btn btn-small" type="button" onClick={() => setAttempt((n) => n + 1)}>
                Retry
              </button>
            </div>
          ) : null}
          {state === 'empty' ? (
            <div className={styles.message}>
              <p>
                <strong>Nothing to replay yet.</strong> This session has no page snapshot: the recorder sends
                one when a page loads. If the visitor is still on the page, check again in a minute.
              </p>
              <button className="btn btn-small" type="button" onClick={() => setAttempt((n) => n + 1)}>
                Check again
              </button>
            </div>
          ) : null}
        </div>
        {markers.length > 0 || log !== undefined ? (
          <ReplayPanes
            markers={markers}
            log={log}
            start={start}
            now={start === null ? Number.NEGATIVE_INFINITY : start + time}
            disabled={!ready}
            onSeek={(at) => seek(at - (start ?? at))}
          />
        ) : null}
      </div>
    </div>
  )
}
