/// <reference lib="dom" />
import type { eventWithTime } from '@rrweb/types'
import { record, type recordOptions } from 'rrweb'
import { detectAutomation } from './automation'
import {
  type BatchEnvelope,
  buildBody,
  EventBuffer,
  type Flush,
  isUserActivity,
  type SessionEndReason,
  sessionEndEvent,
} from './batch'
import { listenToChildFrames, noteFloodWith } from './cross-origin-frames'
import { DebugIdTracker } from './debug-ids'
import { WindowLease } from './lease'
import { GUARD_EVENT_TAG } from './mutation-guard'
import { attachNetworkDetails, type LoadNetworkDetails } from './network-details/load'
import type { ResolvedOptions } from './options'
import { pageGuard } from './page-guard'
import { allowedReferrer, pageAllowed, watchPageRules } from './page-rules'
import { SessionPages } from './pages'
import { installConsoleCapture } from './plugins/console'
import { installErrorCapture } from './plugins/errors'
import { installNavigationCapture } from './plugins/navigation'
import { createNetworkPlugin } from './plugins/network'
import { captureOptions } from './record-options'
import { browserParses, maskSelectorsOf, RemoteMask } from './remote-mask'
import { SampledCapture } from './sampled-capture'
import { decideSampling } from './sampling'
import { SessionManager, type SessionState } from './session'
import { watchSiteNavigation } from './site-navigation'
import { SnapshotWait } from './snapshot-wait'
import { memoryStore, randomId, safeStore } from './storage'
import { BEACON_MAX_BYTES, gzipCompressor, Transport } from './transport'

/** Room for the batch envelope (session, user, page) inside a beacon. */
const BEACON_EVENT_BYTES = BEACON_MAX_BYTES - 8_000
const STOP_DRAIN_MS = 10_000
const FULL_SNAPSHOT_EVENT = 2
const CUSTOM_EVENT = 5
/** The service's mask selectors as last applied in this tab, so its next pages mask them from their first snapshot. */
const MASK_KEY = 'svc_replay:mask'

export interface RecorderInternals {
  /** URL of the standalone script, so its frames can be kept out of captured stacks. */
  scriptUrl?: string
  /** Loads the network details part; used only when `networkDetails` is set. */
  loadNetworkDetails?: LoadNetworkDetails
}

export interface Recorder {
  identify(userId: string, properties: Record<string, unknown> | null): void
  stop(): Promise<void>
  /** Consent withdrawn: capture stops, nothing more is sent, what waits to be sent is dropped. */
  discard(): void
}

/**
 * Starts recording this window: capture hooks at once, rrweb at DOMContentLoaded, batches on
 * count, size and time, beacons when the page is hidden or left, and a final batch when the
 * session ends (idle timeout or `stop()`).
 */
export function startRecorder(
  options: ResolvedOptions,
  internals: RecorderInternals,
  warn: (m: string) => void,
): Recorder {
  const win = window
  const log = (message: string) => {
    if (options.debug) warn(message)
  }
  // Decided once: a reproduction's marker is set before any page script, and the WebDriver
  // flag and user agent do not change while the page lives.
  const automation = detectAutomation(win)
  // Taken before the network capture wraps fetch: uploads never pass through the wrapper.
  const pageFetch = win.fetch.bind(win)
  // storage: 'none' keeps ids in memory: nothing on the device, each page view its own session.
  const storageFree = options.storage === 'none'
  const tab = storageFree ? memoryStore() : safeStore(() => win.sessionStorage)
  const device = storageFree ? memoryStore() : safeStore(() => win.localStorage)
  const staleAfterMs = Math.max(3 * options.flushIntervalMs, 15_000)
  const pages = new SessionPages(device, Date.now, randomId, staleAfterMs)
  const session = new SessionManager(
    {
      tab,
      device,
      now: Date.now,
      newId: randomId,
      idleTimeoutMs: options.sessionIdleTimeoutMs,
      sample: () => decideSampling(options.sessionSampleRate, options.errorSampleRate, Math.random),
      liveVisit: (sessionId) => pages.hasLive(sessionId),
    },
    win.location.href,
  )
  const lease = new WindowLease(device, Date.now, randomId, staleAfterMs)
  if (lease.heldByAnother(session.windowId)) session.forkWindow()
  lease.renew(session.windowId)
  pages.beat(session.current.id)
  const siteNavigation = watchSiteNavigation(win, Date.now)
  // allowPages/denyPages: on a denied page nothing is kept or sent, not even its address.
  const pageGate = watchPageRules(win, options, (allowed) => onPageRulesChange(allowed))

  let stopped = false
  /** Consent withdrawn: set once, also over a stop() still delivering its final batch. */
  let discarded = false
  let stopRecording: (() => void) | undefined
  const transport = new Transport({
    endpoint: options.endpoint,
    apiKey: options.apiKey,
    fetch: pageFetch,
    sendBeacon:
      typeof navigator.sendBeacon === 'function' ? (url, data) => navigator.sendBeacon(url, data) : null,
    compress: gzipCompressor(),
    tab,
    random: Math.random,
    now: Date.now,
    log,
    onUnauthorized: () => {
      warn('the ingest API rejected the API key (401); recording stopped. Check apiKey and ingestUrl.')
      teardown()
    },
    onAnswer: (answer) => {
      const selectors = maskSelectorsOf(answer, parses)
      if (selectors && remoteMask.update(selectors)) applyRemoteMask()
    },
  })
  transport.restorePending()

  const envelope = (state: Readonly<SessionState>): BatchEnvelope => ({
    session: {
      id: state.id,
      windowId: session.windowId,
      startedAt: state.startedAt,
      lastActivityAt: state.lastEventAt,
      url: state.url,
    },
    user: { anonymousId: session.anonymousId, id: state.userId, properties: state.userProperties },
    page: {
      url: pageGate.lastAllowedUrl ?? state.url,
      referrer: allowedReferrer(document.referrer, win.location.origin, options),
      viewport: { width: win.innerWidth, height: win.innerHeight },
    },
    metadata: {
      userAgent: navigator.userAgent || null,
      language: navigator.language || null,
      ...(options.release === null ? {} : { release: options.release }),
      ...(guard?.degraded || frameDegraded ? { degraded: true } : {}),
      ...(automation ? { automation } : {}),
    },
  })

  const debugIds = new DebugIdTracker(globalThis as unknown as Record<string, unknown>)

  const buffer = new EventBuffer()
  /** Set when a relaying frame's own guard stopped part of it (its svc.guard event came through). */
  let frameDegraded = false
  // Sees each rrweb event first in `emit`; reads the mirror that `record()` fills.
  const guard = pageGuard(options, win, log)

  /** Cuts everything buffered into batches; only the last of a final cut says `final`. */
  const cut = (flush: Flush, maxBytes: number, endReason?: SessionEndReason) => {
    const groups: string[][] = []
    while (buffer.count > 0) groups.push(buffer.take(options.maxBatchEvents, maxBytes))
    if (groups.length === 0) {
      // Nothing of this session was sent (error-only or unrecorded), or this page is denied:
      // there is nothing for the server to end.
      if (flush === 'normal' || session.current.nextSequence === 0 || !pageGate.allowed) return
      groups.push([
        JSON.stringify(
          sessionEndEvent(Math.max(Date.now(), session.current.lastEventAt), endReason ?? 'stop'),
        ),
      ])
    }
    // A session that started on a denied page is named after the first page it was recorded on.
    const startUrl = pageGate.lastAllowedUrl
    if (session.current.nextSequence === 0 && startUrl && !pageAllowed(session.current.url, options))
      session.renameStart(startUrl)
    const state = session.current
    // Read once per cut, and sent with its first batch: the server merges them into the session.
    const fresh = debugIds.takeNew()
    groups.forEach((events, i) => {
      const batchFlush: Flush = flush === 'final' && i === groups.length - 1 ? 'final' : 'normal'
      const sequence = session.reserveSequence()
      const batchEnvelope = envelope(state)
      if (fresh && i === 0) batchEnvelope.metadata.debugIds = fresh
      transport.enqueue({
        sessionId: state.id,
        sequence,
        flush: batchFlush,
        json: buildBody(batchEnvelope, events, sequence, batchFlush),
      })
    })
  }

  // A session that timed out while the tab was away (or closed) still gets its final batch.
  const expired = session.expired
  if (expired && expired.nextSequence > 0) {
    const event = JSON.stringify(
      sessionEndEvent(Math.max(expired.lastEventAt, expired.lastActivityAt), 'idle'),
    )
    transport.enqueue({
      sessionId: expired.id,
      sequence: expired.nextSequence,
      flush: 'final',
      json: buildBody(envelope(expired), [event], expired.nextSequence, 'final'),
    })
  }
  // Drops what a crashed page left of the old session's heartbeats.
  if (expired) pages.leave(expired.id)

  // After an idle end the tab waits for a person before it starts the next session.
  let dormant = false
  let rrwebStarted = false
  /**
   * Set from rrweb's late start (see onPageRulesChange) until a turn after its first full
   * snapshot: the capture hooks hand over what they kept on the denied page right after it.
   */
  let deniedBacklog = false

  const snapshotSoon = () =>
    setTimeout(() => {
      if (stopped || !rrwebStarted) return
      try {
        // Through the guard: rrweb's own snapshot would leave the parts it stopped out.
        if (guard) guard.snapshot(true)
        else record.takeFullSnapshot(true)
      } catch (error) {
        log(`rrweb: ${error instanceof Error ? error.message : String(error)}`)
      }
    }, 0)
  const snapshotWait = new SnapshotWait(snapshotSoon)

  // Error-only sessions keep their recording in memory until something goes wrong.
  const sampled = new SampledCapture(session.current.sampling, {
    windowMs: options.errorBufferMs,
    checkout: () => {
      log(`error buffer: ${sampled.bufferedBytes} bytes kept, taking a full snapshot`)
      snapshotSoon()
    },
    promote: (recording, kind) => {
      log(`error-only session uploads its buffer (${kind})`)
      if (!recording) {
        session.promoteToFull(Date.now(), pageGate.lastAllowedUrl ?? win.location.href)
        snapshotWait.start(Date.now())
        return
      }
      session.promoteToFull(recording.startedAt, recording.url || win.location.href)
      for (const json of recording.events) buffer.addSerialized(json, recording.lastTimestamp)
      cut('normal', options.maxBatchBytes)
    },
  })
  // Without rrweb an unrecorded session sees no activity: each page load counts as some, so
  // the session (and its decision) lasts as long as the visit.
  if (session.current.sampling === 'off') {
    session.touch(Date.now(), true)
    session.persist()
  }

  const endForIdle = () => {
    cut('final', options.maxBatchBytes, 'idle')
    session.end()
    dormant = true
  }

  const resume = () => {
    dormant = false
    session.rotate(win.location.href)
    sampled.setMode(session.current.sampling)
    pages.beat(session.current.id)
    // Node ids restart with a full snapshot; events before it would point at the old ones.
    snapshotWait.start(Date.now())
  }

  const emit = (event: eventWithTime) => {
    if (stopped) return
    // rrweb serialises a denied page's changes too: the guard counts them all.
    guard?.observe(event)
    if (event.type === CUSTOM_EVENT && (event.data as { tag?: unknown }).tag === GUARD_EVENT_TAG)
      frameDegraded = true
    // rrweb calls the plugins' observers just after its first full snapshot: they flush their
    // backlog then, or in a microtask (custom-event-queue.ts). Not a turn after start(): with
    // the document still loading, rrweb waits for DOMContentLoaded.
    if (deniedBacklog && event.type === FULL_SNAPSHOT_EVENT)
      setTimeout(() => {
        deniedBacklog = false
      }, 0)
    if (!pageGate.allowed) return
    if (deniedBacklog && (event.type === 5 || event.type === 6)) return
    const activity = isUserActivity(event)
    if (!dormant && activity && session.isIdle()) endForIdle()
    if (dormant) {
      if (activity) resume()
      return
    }
    if (snapshotWait.drops(event.type, event.timestamp)) return
    session.touch(event.timestamp, activity)
    if (sampled.hold(event)) return
    buffer.add(event)
    if (buffer.isFull(options.maxBatchEvents, options.maxBatchBytes)) cut('normal', options.maxBatchBytes)
  }

  const scriptUrl = internals.scriptUrl?.replace(/#.*$/, '')
  const isRecorderFrame = scriptUrl ? (line: string) => line.includes(scriptUrl) : undefined
  const errors = installErrorCapture({ addCustomEvent: record.addCustomEvent, win, isRecorderFrame })
  const navigation = installNavigationCapture({
    addCustomEvent: record.addCustomEvent,
    win,
    onUrlChange: () => pageGate.check(),
  })
  const network = createNetworkPlugin({
    win,
    ignoreUrls: [`${options.ingestUrl}/api/sdk/`, ...options.networkIgnoreUrls],
    // Judged when a request starts: one of a denied page may answer on an allowed one. An
    // unrecorded session never emits one: its requests are not timed, nor their bodies read.
    keep: () => pageGate.allowed && sampled.mode !== 'off',
  })
  if (options.networkDetails)
    attachNetworkDetails(network, options.networkDetails, internals.loadNetworkDetails, warn)
  const consoleCapture = installConsoleCapture({ levels: options.consoleLevels, win, isRecorderFrame })
  // Before record(): its guard must see frames' messages before rrweb does.
  const childFrames =
    options.recordCrossOriginIframes && win.parent === win
      ? listenToChildFrames(win, {
          onFlood: noteFloodWith(record.addCustomEvent, win),
          childOrigins: options.childOrigins,
        })
      : null

  type RrwebOptions = recordOptions<eventWithTime>
  let rrwebOptions: RrwebOptions | null = null
  const parses = browserParses(document)
  const remoteMask = new RemoteMask()
  try {
    const kept = maskSelectorsOf({ mask: { selectors: JSON.parse(tab.getItem(MASK_KEY) ?? '[]') } }, parses)
    if (kept) remoteMask.update(kept)
  } catch {
    // A damaged entry: the next answer brings the selectors again.
  }
  /**
   * New service selectors: rrweb cannot change its masking while it runs, so it starts again
   * with them, and its new full snapshot masks the page from now on.
   */
  const applyRemoteMask = () => {
    if (stopped) return
    tab.setItem(MASK_KEY, JSON.stringify(remoteMask.selectors))
    if (!rrwebOptions) return
    rrwebOptions = {
      ...rrwebOptions,
      maskTextSelector: remoteMask.maskTextSelector(options.maskTextSelector),
    }
    // Not running yet (unrecorded session, denied page): it starts with them.
    if (!rrwebStarted) return
    log(`the service asks to mask ${remoteMask.selectors.length} more selector(s); recording restarts`)
    // An error-only session's memory holds the page unmasked: it is not uploaded later.
    if (sampled.mode === 'buffer') sampled.setMode('buffer')
    try {
      stopRecording?.()
    } catch {
      // rrweb teardown failures must not reach the page.
    }
    try {
      stopRecording = runRrweb(rrwebOptions)
    } catch (error) {
      warn(`recording could not restart: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  const runRrweb = (rrweb: RrwebOptions) => {
    rrwebStarted = true
    return record(rrweb)
  }
  /**
   * rrweb runs only where something may be kept: not for an unrecorded session, and not on a
   * page denied from the start (it starts when the page moves to an allowed address).
   */
  const startRrweb = (rrweb: RrwebOptions) => {
    rrwebOptions = rrweb
    return sampled.mode !== 'off' && pageGate.allowed ? runRrweb(rrweb) : undefined
  }

  try {
    stopRecording = startRrweb({
      emit,
      recordAfter: 'DOMContentLoaded',
      ...captureOptions(options),
      maskTextSelector: remoteMask.maskTextSelector(options.maskTextSelector),
      // Only a top window takes its frames' recordings; in a frame the option would make rrweb
      // post to a parent that does not listen (cross-origin frames go through frame-recorder.ts).
      recordCrossOriginIframes: childFrames !== null,
      plugins: [
        consoleCapture,
        network,
        errors.plugin,
        navigation.plugin,
        ...(childFrames ? [childFrames.plugin] : []),
      ],
      errorHandler: (error) => {
        log(`rrweb: ${error instanceof Error ? error.message : String(error)}`)
        return true
      },
    })
  } catch (error) {
    warn(`recording could not start: ${error instanceof Error ? error.message : String(error)}`)
  }

  function onPageRulesChange(allowed: boolean) {
    if (stopped) return
    if (!allowed) {
      // What the allowed page recorded goes now, still under its own address.
      if (!dormant) cut('normal', options.maxBatchBytes)
      return
    }
    if (rrwebStarted) {
      // Events after the denied stretch must not point at nodes of a snapshot taken before it.
      snapshotWait.start(Date.now())
      return
    }
    if (sampled.mode === 'off' || !rrwebOptions) return
    // The capture hooks kept what happened on the denied page for rrweb's start; dropped.
    deniedBacklog = true
    try {
      stopRecording = runRrweb(rrwebOptions)
    } catch (error) {
      warn(`recording could not start: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  const tick = () => {
    if (stopped) return
    lease.renew(session.windowId)
    if (dormant) return
    pages.beat(session.current.id)
    // Without rrweb nothing shows activity, so no idle end is judged here.
    if (!rrwebStarted) return
    if (session.isIdle()) endForIdle()
    else cut('normal', options.maxBatchBytes)
  }
  const interval = setInterval(tick, options.flushIntervalMs)

  const onHidden = () => {
    if (!stopped && !dormant) {
      cut('normal', BEACON_EVENT_BYTES)
      session.persist()
    }
    transport.sendAllByBeacon()
  }
  const onPageHide = () => {
    // The last live page of the session ends the visit as far as the recorder can tell: its
    // final batch has the server analyse the session at once. A reload or the site's next page
    // continues the visit in this tab, so the server waits for what that page records.
    // Without storage the next page is a session of its own: this one always ends here.
    if (
      !stopped &&
      !dormant &&
      pages.leave(session.current.id) &&
      (storageFree || !siteNavigation.continuesHere())
    ) {
      cut('final', BEACON_EVENT_BYTES, 'pagehide')
      session.persist()
    }
    onHidden()
    lease.release(session.windowId)
  }
  const onVisibility = () => {
    if (document.visibilityState === 'hidden') onHidden()
    else transport.forgetSaved()
  }
  const onPageShow = (event: PageTransitionEvent) => {
    if (!event.persisted) return
    lease.renew(session.windowId)
    if (!stopped && !dormant) pages.beat(session.current.id)
    transport.forgetSaved()
  }
  win.addEventListener('pagehide', onPageHide)
  document.addEventListener('visibilitychange', onVisibility)
  win.addEventListener('pageshow', onPageShow)

  /** Stops rrweb and restores everything the capture wrapped (fetch, XHR, history, console). */
  const detachCapture = () => {
    stopped = true
    clearInterval(interval)
    guard?.stop()
    try {
      stopRecording?.()
    } catch {
      // rrweb teardown failures must not reach the page.
    }
    errors.uninstall()
    navigation.uninstall()
    network.uninstall()
    consoleCapture.uninstall()
    childFrames?.detach()
  }

  const removeListeners = (leaveTraces = true) => {
    win.removeEventListener('pagehide', onPageHide)
    document.removeEventListener('visibilitychange', onVisibility)
    win.removeEventListener('pageshow', onPageShow)
    siteNavigation.detach()
    pageGate.detach()
    if (!leaveTraces) return
    lease.release(session.windowId)
    pages.leave(session.current.id)
  }

  function teardown() {
    if (stopped) return
    detachCapture()
    removeListeners()
    transport.close()
  }

  return {
    identify: (userId, properties) => session.identify(userId, properties),
    stop: async () => {
      if (stopped) return
      if (!dormant) cut('final', options.maxBatchBytes, 'stop')
      session.end()
      const delivered = transport.drain(STOP_DRAIN_MS)
      // Capture stops now; the queue keeps sending (and beacons if the page is left meanwhile).
      detachCapture()
      await delivered
      // Consent was withdrawn while the final batch was on its way: nothing more goes or is written.
      if (discarded) return
      removeListeners()
      transport.sendAllByBeacon()
      transport.close()
    },
    discard: () => {
      if (discarded) return
      discarded = true
      if (!stopped) detachCapture()
      // The lease and heartbeats are not touched: the caller removes all our keys at once.
      removeListeners(false)
      transport.discard()
      sampled.setMode('off')
      buffer.take(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
    },
  }
}
