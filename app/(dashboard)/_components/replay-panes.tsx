'use client'

import { type JSX, type ReactNode, useEffect, useId, useMemo, useRef, useState } from 'react'
import type { ConsoleEntry, NetworkDetails, NetworkEntry, ReplayLog } from '@/lib/sessions/replay-log'
import styles from './replay-player.module.css'
import { formatOffset, KIND_LABEL, lastAtOrBefore, type ReplayMarker } from './replay-time'

type Tab = 'moments' | 'console' | 'network'

interface PaneProps {
  /** Epoch ms of the recording's first event; null until the recording is in. */
  start: number | null
  /** Epoch ms the replay is at. */
  now: number
  disabled: boolean
  onSeek(at: number): void
}

/**
 * The entry the replay is at: the last one at or before now. Of several at one moment (an error
 * and its issue) the one the user picked stays current.
 */
function useCurrent(entries: readonly { at: number }[], now: number) {
  const [picked, setPicked] = useState<number | null>(null)
  let index = lastAtOrBefore(entries, now)
  if (picked !== null && index >= 0 && entries[picked]?.at === entries[index]!.at) index = picked
  return [index, setPicked] as const
}

/** A list that keeps its current row in view inside itself, never scrolling the page. */
function EntryList<T extends { at: number }>(props: {
  entries: T[]
  pane: PaneProps
  label: string
  empty: string
  note?: string | null
  /** `more` is shown under the row's button (a button cannot hold a disclosure). */
  row(entry: T): { kind?: string; failed?: boolean; body: ReactNode; more?: ReactNode }
}): JSX.Element {
  const { entries, pane } = props
  const [current, pick] = useCurrent(entries, pane.now)
  const listRef = useRef<HTMLOListElement>(null)
  useEffect(() => {
    const list = listRef.current
    if (current < 0 || !list || list.offsetParent === null) return
    const item = list.children[current] as HTMLElement | undefined
    if (!item) return
    // The list is positioned, so a row's offsetTop is measured from the list's own top.
    const top = item.offsetTop
    if (top < list.scrollTop || top + item.offsetHeight > list.scrollTop + list.clientHeight)
      list.scrollTop = Math.max(0, top - list.clientHeight / 3)
  }, [current])
  if (entries.length === 0) return <p className={styles.none}>{props.empty}</p>
  return (
    <>
      {props.note ? <p className={styles.none}>{props.note}</p> : null}
      <ol className={styles.entries} ref={listRef} aria-label={props.label}>
        {entries.map((entry, index) => {
          const { kind, failed, body, more } = props.row(entry)
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: the lists are fixed for the page's life
            <li key={index}>
              <button
                type="button"
                className={styles.entry}
                data-kind={kind}
                data-failed={failed ? 'true' : undefined}
                aria-current={index === current ? 'step' : undefined}
                disabled={pane.disabled}
                onClick={() => {
                  pick(index)
                  pane.onSeek(entry.at)
                }}
              >
                <span className={styles.time}>
                  {pane.start === null ? '' : formatOffset(entry.at - pane.start)}
                </span>
                <span className={styles.what}>{body}</span>
              </button>
              {more}
            </li>
          )
        })}
      </ol>
    </>
  )
}

function consoleRow(entry: ConsoleEntry) {
  return {
    kind: entry.level,
    body: (
      <>
        <span className={styles.kind}>{entry.level}</span>
        <span className={styles.code}>{entry.text}</span>
      </>
    ),
  }
}

function Headers({ label, headers }: { label: string; headers: [string, string][] }) {
  if (headers.length === 0) return null
  return (
    <>
      <h4 className={styles.detailHeading}>{label}</h4>
      <dl className={styles.headers}>
        {headers.map(([name, value], index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a recorded header list may repeat a name
          <div key={index}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </>
  )
}

function Body({ label, body, omitted }: { label: string; body: string | null; omitted: string | null }) {
  if (body === null && omitted === null) return null
  return (
    <>
      <h4 className={styles.detailHeading}>{label}</h4>
      {body !== null ? <pre className={`${styles.code} ${styles.body}`}>{body}</pre> : null}
      {omitted !== null ? <p className={styles.none}>Not captured: {omitted}</p> : null}
    </>
  )
}

/**
 * Headers and bodies the recorder captured (docs/network-details.md). Everything in them was
 * written by the recorded page's visitor's browser, or by whoever holds the ingest key: it is
 * rendered as text, which React escapes, never as HTML.
 */
function RequestDetails({ details }: { details: NetworkDetails }) {
  return (
    <details className={styles.details} data-testid="request-details">
      <summary>Details</summary>
      <Headers label="Request headers" headers={details.requestHeaders} />
      <Body label="Request body" body={details.requestBody} omitted={details.requestBodyOmitted} />
      <Headers label="Response headers" headers={details.responseHeaders} />
      <Body label="Response body" body={details.responseBody} omitted={details.responseBodyOmitted} />
    </details>
  )
}

function networkRow(entry: NetworkEntry) {
  return {
    failed: entry.failed,
    more: entry.details ? <RequestDetails details={entry.details} /> : undefined,
    body: (
      <>
        <span className={styles.kind}>
          {entry.method} · {entry.status === 0 ? 'no response' : entry.status}
          {entry.durationMs === null ? '' : ` · ${entry.durationMs} ms`}
        </span>
        <span className={styles.code}>{entry.url}</span>
      </>
    ),
  }
}

function momentRow(marker: ReplayMarker) {
  return {
    kind: marker.kind,
    body: (
      <>
        <span className={styles.kind}>{KIND_LABEL[marker.kind]}</span>
        <span className={styles.label}>{marker.label}</span>
      </>
    ),
  }
}

function tabKey(key: string, at: number, count: number): number | null {
  if (key === 'ArrowRight') return (at + 1) % count
  if (key === 'ArrowLeft') return (at - 1 + count) % count
  if (key === 'Home') return 0
  if (key === 'End') return count - 1
  return null
}

const cut = (truncated: boolean, what: string) =>
  truncated ? `A long session: the first ${what} are listed.` : null

/** DevTools-style tabs beside the replay: moments, console and network, following playback. */
export function ReplayPanes(props: PaneProps & { markers: ReplayMarker[]; log?: ReplayLog | null }) {
  const { markers, log, ...pane } = props
  const [tab, setTab] = useState<Tab>('moments')
  const id = useId()
  const tabs = useMemo(() => {
    const list: { key: Tab; label: string }[] = [{ key: 'moments', label: `Moments (${markers.length})` }]
    if (log !== undefined) {
      list.push({ key: 'console', label: `Console (${log?.console.length ?? 0})` })
      list.push({ key: 'network', label: `Network (${log?.network.length ?? 0})` })
    }
    return list
  }, [markers.length, log])
  const unreadable = 'The recording could not be read for this list.'
  return (
    <div className={styles.panes}>
      {/* Tabs as ARIA describes them: one tab stop, the arrows (Home, End) move and open. */}
      <div
        className={styles.tabs}
        role="tablist"
        aria-label="Replay details"
        onKeyDown={(event) => {
          const at = tabs.findIndex(({ key }) => key === tab)
          const next = tabKey(event.key, at, tabs.length)
          if (next === null) return
          event.preventDefault()
          const key = tabs[next]!.key
          setTab(key)
          document.getElementById(`${id}-${key}-tab`)?.focus()
        }}
      >
        {tabs.map(({ key, label }) => (
          <button
            key={key}
            type="button"
            role="tab"
            id={`${id}-${key}-tab`}
            aria-controls={`${id}-${key}`}
            aria-selected={tab === key}
            tabIndex={tab === key ? 0 : -1}
            className={styles.tab}
            onClick={() => setTab(key)}
          >
            {label}
          </button>
        ))}
      </div>
      <div
        role="tabpanel"
        id={`${id}-moments`}
        aria-labelledby={`${id}-moments-tab`}
        hidden={tab !== 'moments'}
      >
        <nav aria-label="Moments in this session">
          <EntryList
            entries={markers}
            pane={pane}
            label="Moments"
            empty="No moments listed for this session."
            row={momentRow}
          />
        </nav>
      </div>
      {log !== undefined ? (
        <>
          <div
            role="tabpanel"
            id={`${id}-console`}
            aria-labelledby={`${id}-console-tab`}
            hidden={tab !== 'console'}
          >
            <EntryList
              entries={log?.console ?? []}
              pane={pane}
              label="Console messages"
              empty={
                log ? 'Nothing was logged to the console (errors and warnings are recorded).' : unreadable
              }
              note={cut(log?.truncated.console ?? false, 'messages')}
              row={consoleRow}
            />
          </div>
          <div
            role="tabpanel"
            id={`${id}-network`}
            aria-labelledby={`${id}-network-tab`}
            hidden={tab !== 'network'}
          >
            <EntryList
              entries={log?.network ?? []}
              pane={pane}
              label="Network requests"
              empty={log ? 'No requests were recorded.' : unreadable}
              note={
                [
                  cut(log?.truncated.network ?? false, 'requests'),
                  log?.detailsCut ? 'Details are shown for the first requests only.' : null,
                ]
                  .filter(Boolean)
                  .join(' ') || null
              }
              row={networkRow}
            />
          </div>
        </>
      ) : null}
    </div>
  )
}
