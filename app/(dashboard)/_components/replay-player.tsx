'use client'

import 'rrweb-player/dist/style.css'
import type { eventWithTime } from '@rrweb/types'
import { type JSX, useCallback, useEffect, useMemo, useRef, useState } from 'react'
import styles from './replay-player.module.css'

export interface ReplayMarker {
  /** Epoch milliseconds. */
  at: number
  label: string
  kind: 'page' | 'click' | 'error' | 'network' | 'rage' | 'issue'
}

/**
 * What we use of rrweb-player. Its typings leave out the Svelte component's own `$set` and
 * `$destroy`, which it has at run time (rrweb-player 2.x is a Svelte 4 component).
 */
interface PlayerInstance {
  goto(timeOffset: number, play?: boolean): void
  addEventListener(event: string, handler: (detail: unknown) => unknown): void
  triggerResize(): void
  $set(props: { width: number; height: number }): void
  $destroy(): void
}

type State = 'loading' | 'ready' | 'error' | 'empty'

type Loaded =
  | { state: 'loading' }
  | { state: 'error'; message: string }
  | { state: 'empty' }
  | { state: 'ready'; events: eventWithTime[]; start: number; end: number }

const KIND_LABEL: Record<ReplayMarker['kind'], string> = {
  page: 'Page',
  click: 'Click',
  error: 'Error',
  network: 'Request',
  rage: 'Frustration',
  issue: 'Issue',
}

// rrweb's event types: a replay needs the page's full snapshot to draw anything.
const FULL_SNAPSHOT = 2
const META = 4
const CONTROLLER_HEIGHT = 80
const MIN_STAGE_HEIGHT = 200

function formatOffset(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  const minutes = Math.floor(seconds / 60)
  return `${minutes}:${String(seconds % 60).padStart(2, '0')}`
}

function isEvent(value: unknown): value is eventWithTime {
  if (typeof value !== 'object' || value === null) return false
  const event = value as { type?: unknown; timestamp?: unknown }
  return (
    typeof event.type === 'number' && typeof event.timestamp === 'number' && Number.isFinite(event.timestamp)
  )
}

async function failureMessage(response: Response): Promise<string> {
  if (response.status === 401) return 'Your sign-in has expired. Sign in again, then reload this page.'
  if (response.status === 404) return 'This session no longer exists in your organization.'
  const body = (await response.json().catch(() => null)) as { error?: unknown } | null
  const detail = typeof body?.error === 'string' ? ` (${body.error})` : ''
  return `The recording could not be loaded: the server answered ${response.status}${detail}. Retry in a moment.`
}

async function loadEvents(sessionId: string, signal: AbortSignal): Promise<Loaded> {
  let response: Response
  try {
    response = await fetch(`/api/dashboard/sessions/${encodeURIComponent(sessionId)}/events`, {
      cache: 'no-store',
      signal,
    })
  } catch (error) {
    if (signal.aborted) throw error
    return {
      state: 'error',
      message: 'The recording could not be downloaded. Check your connection and retry.',
    }
  }
  if (!response.ok) return { state: 'error', message: await failureMessage(response) }
  let body: unknown
  try {
    body = await response.json()
  } catch (error) {
    if (signal.aborted) throw error
    return { state: 'error', message: 'The recording was cut off while downloading. Retry.' }
  }
  if (!Array.isArray(body))
    return { state: 'error', message: 'The server sent something that is not a recording. Retry.' }
  const events = body.filter(isEvent).sort((a, b) => a.timestamp - b.timestamp)
  if (events.length < 2 || !events.some((event) => event.type === FULL_SNAPSHOT)) return { state: 'empty' }
  return { state: 'ready', events, start: events[0]!.timestamp, end: events[events.length - 1]!.timestamp }
}

const markerKey = (marker: ReplayMarker) => `${marker.at}:${marker.kind}:${marker.label}`

/** In time order; a marker repeated exactly (same moment, kind and label) tells nothing new. */
function uniqueMarkers(markers: ReplayMarker[]): ReplayMarker[] {
  const seen = new Set<string>()
  return [...markers]
    .sort((a, b) => a.at - b.at)
    .filter((marker) => {
      const key = markerKey(marker)
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
}

/** The recorded page's aspect ratio (from rrweb's Meta event), to size the stage without bars. */
function recordedAspect(events: eventWithTime[]): number {
  for (const event of events) {
    if (event.type !== META) continue
    const { width, height } = event.data as { width?: unknown; height?: unknown }
    if (typeof width === 'number' && typeof height === 'number' && width > 0 && height > 0)
      return height / width
  }
  return 10 / 16
}

function stageSize(width: number, aspect: number) {
  const limit = Math.max(MIN_STAGE_HEIGHT, Math.round(window.innerHeight * 0.7) - CONTROLLER_HEIGHT)
  return {
    width: Math.floor(width),
    height: Math.max(MIN_STAGE_HEIGHT, Math.min(limit, Math.round(width * aspect))),
  }
}

/**
 * A session's replay with the moments worth seeing listed beside it. The events come from the
 * dashboard's events endpoint; rrweb-player is loaded in the browser only. Every marker is a
 * button that moves the replay to its moment, so keyboard users can jump to an error too.
 */
export function ReplayPlayer(props: {
  sessionId: string
  /** Epoch ms: the replay starts paused at this moment. */
  openAt?: number
  markers?: ReplayMarker[]
  autoPlay?: boolean
}): JSX.Element {
  const { sessionId, openAt, autoPlay = false } = props
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' })
  const [attempt, setAttempt] = useState(0)
  const [active, setActive] = useState(-1)
  // The events are in, but rrweb-player (loaded on demand) has not drawn them yet.
  const [mounted, setMounted] = useState(false)
  const rootRef = useRef<HTMLDivElement>(null)
  const stageRef = useRef<HTMLDivElement>(null)
  const playerRef = useRef<PlayerInstance | null>(null)
  const markers = useMemo(() => uniqueMarkers(props.markers ?? []), [props.markers])
  const markersRef = useRef(markers)
  const chosenRef = useRef<number | null>(null)
  markersRef.current = markers

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` changes only to fetch again (Retry)
  useEffect(() => {
    const controller = new AbortController()
    setLoaded({ state: 'loading' })
    loadEvents(sessionId, controller.signal).then(setLoaded, () => {
      // Aborted because the component unmounted or the session changed: nothing to show.
    })
    return () => controller.abort()
  }, [sessionId, attempt])

  const start = loaded.state === 'ready' ? loaded.start : null

  // The marker the replay is at (the last one at or before the current time), without
  // re-rendering on every animation frame: only when that marker changes.
  const follow = useCallback(
    (offset: number) => {
      rootRef.current?.setAttribute('data-time', String(Math.round(offset)))
      if (start === null) return
      const now = start + offset
      const list = markersRef.current
      let index = -1
      for (let i = 0; i < list.length && list[i]!.at <= now; i++) index = i
      // Several markers at one moment (an error and its issue): the one the user chose stays current.
      const chosen = chosenRef.current
      if (chosen !== null && index >= 0 && list[chosen]?.at === list[index]!.at) index = chosen
      setActive(index)
    },
    [start],
  )

  useEffect(() => {
    if (loaded.state !== 'ready') return
    const stage = stageRef.current
    if (!stage) return
    const { events, start: first, end } = loaded
    let disposed = false
    let player: PlayerInstance | null = null
    let observer: ResizeObserver | null = null
    const aspect = recordedAspect(events)
    import('rrweb-player').then(
      ({ default: Player }) => {
        if (disposed) return
        const size = stageSize(stage.clientWidth, aspect)
        player = new Player({
          target: stage,
          props: {
            events,
            ...size,
            autoPlay: false,
            skipInactive: true,
            // Four speed buttons and the skip switch do not fit beside each other on a phone.
            speedOption: size.width < 480 ? [1, 2, 4] : [1, 2, 4, 8],
          },
        }) as unknown as PlayerInstance
        playerRef.current = player
        player.addEventListener('ui-update-current-time', (detail) => {
          const payload = (detail as { payload?: unknown } | undefined)?.payload
          if (typeof payload === 'number') follow(payload)
        })
        const offset = openAt === undefined ? 0 : Math.min(Math.max(0, openAt - first), end - first)
        player.goto(offset, autoPlay)
        follow(offset)
        setMounted(true)
        let width = size.width
        observer = new ResizeObserver(() => {
          const next = stageSize(stage.clientWidth, aspect)
          if (!player || next.width === width || next.width <= 0) return
          width = next.width
          player.$set(next)
          player.triggerResize()
        })
        observer.observe(stage)
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
      observer?.disconnect()
      player?.$destroy()
      playerRef.current = null
      setMounted(false)
      stage.replaceChildren()
    }
  }, [loaded, openAt, autoPlay, follow])

  const seek = (marker: ReplayMarker, index: number) => {
    if (loaded.state !== 'ready' || !playerRef.current) return
    chosenRef.current = index
    const offset = Math.min(Math.max(0, marker.at - loaded.start), loaded.end - loaded.start)
    playerRef.current.goto(offset)
    follow(offset)
  }

  const state: State = loaded.state === 'ready' && !mounted ? 'loading' : loaded.state
  return (
    <div className={styles.player} data-testid="replay-player" data-state={state} ref={rootRef}>
      <div className={styles.layout}>
        <div className={styles.screen}>
          <div className={styles.stage} ref={stageRef} hidden={loaded.state !== 'ready'} />
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
        {markers.length > 0 ? (
          <nav className={styles.markers} aria-label="Moments in this session">
            <ol>
              {markers.map((marker, index) => (
                <li key={markerKey(marker)}>
                  <button
                    type="button"
                    className={styles.marker}
                    data-kind={marker.kind}
                    aria-current={index === active ? 'step' : undefined}
                    disabled={state !== 'ready'}
                    onClick={() => seek(marker, index)}
                  >
                    <span className={styles.time}>
                      {start === null ? '' : formatOffset(marker.at - start)}
                    </span>
                    <span className={styles.what}>
                      <span className={styles.kind}>{KIND_LABEL[marker.kind]}</span>
                      <span className={styles.label}>{marker.label}</span>
                    </span>
                  </button>
                </li>
              ))}
            </ol>
          </nav>
        ) : null}
      </div>
    </div>
  )
}
