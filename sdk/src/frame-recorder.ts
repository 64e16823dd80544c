/// <reference lib="dom" />
import type { eventWithTime, RecordPlugin } from '@rrweb/types'
import { record } from 'rrweb'
import { askParent, listenToChildFrames, noteFloodWith } from './cross-origin-frames'
import { attachNetworkDetails } from './network-details/load'
import type { ResolvedOptions } from './options'
import { pageGuard } from './page-guard'
import { installConsoleCapture } from './plugins/console'
import { installErrorCapture } from './plugins/errors'
import { createNetworkPlugin } from './plugins/network'
import { captureOptions } from './record-options'
import { type Recorder, type RecorderInternals, startRecorder } from './recorder'

/** How long a frame waits for its parent's recorder before it records a session of its own. */
export const PARENT_ANSWER_MS = 2_000

/**
 * The recorder in a cross-origin frame with `recordCrossOriginIframes` and `parentOrigins`
 * (index.ts starts it only then): when the parent page is of one of those origins and records
 * with the option too (cross-origin-frames.ts), rrweb here passes every event to the parent
 * and this frame keeps nothing of its own: no session, no batches, no storage, no heartbeats.
 * Its console, errors and requests are rrweb plugin and custom events, so they travel to the
 * parent's session with the rest. rrweb starts only once such a parent answered: it posts with
 * target origin '*', so before that handshake nothing may be posted at all. Route changes in
 * the frame are not recorded as navigations: they would read as the top page's. Without an
 * answer the frame records its own session as it would without the option.
 */
export function startFrameRecorder(
  options: ResolvedOptions,
  internals: RecorderInternals,
  warn: (m: string) => void,
): Recorder {
  const win = window
  const log = (message: string) => {
    if (options.debug) warn(message)
  }
  // Installed at once, like the top window's: the frame's boot is recorded too once rrweb runs.
  const scriptUrl = internals.scriptUrl?.replace(/#.*$/, '')
  const isRecorderFrame = scriptUrl ? (line: string) => line.includes(scriptUrl) : undefined
  const errors = installErrorCapture({ addCustomEvent: record.addCustomEvent, win, isRecorderFrame })
  const network = createNetworkPlugin({
    win,
    ignoreUrls: [`${options.ingestUrl}/api/sdk/`, ...options.networkIgnoreUrls],
  })
  // A frame's requests go to the parent's session with the details this frame's options allow.
  // Captured from the start but carried only by rrweb events, which are posted only to a parent
  // of an allowed origin; without one this capture is uninstalled and the own session's used.
  if (options.networkDetails)
    attachNetworkDetails(network, options.networkDetails, internals.loadNetworkDetails, warn)
  const consoleCapture = installConsoleCapture({ levels: options.consoleLevels, win, isRecorderFrame })
  const uninstallCapture = () => {
    errors.uninstall()
    network.uninstall()
    consoleCapture.uninstall()
  }

  let stopped = false
  let relaying = false
  let own: Recorder | null = null
  let stopRecording: (() => void) | undefined
  // Frames inside this one pass their recordings through it.
  const grandchildren = listenToChildFrames(win, {
    onFlood: noteFloodWith(record.addCustomEvent, win),
    childOrigins: options.childOrigins,
  })

  // The parent's guard cannot count this frame's changes (they name nodes of another mirror), so
  // the frame has its own. rrweb here emits nothing: the guard sees each event as the plugin's
  // eventProcessor, just before it is posted. Its custom events travel to the parent's session,
  // which is marked degraded when it sees one (recorder.ts).
  const guard = pageGuard(options, win, log)
  const guardPlugin: RecordPlugin | null = guard
    ? {
        name: 'svc/mutation-guard',
        options: null,
        eventProcessor: <TExtend>(event: eventWithTime) => {
          guard.observe(event)
          return event as eventWithTime & TExtend
        },
      }
    : null

  const startRelay = () => {
    try {
      stopRecording = record({
        ...captureOptions(options),
        recordAfter: 'DOMContentLoaded',
        // In a cross-origin frame this makes rrweb post its events to the parent instead of emitting.
        recordCrossOriginIframes: true,
        plugins: [
          consoleCapture,
          network,
          errors.plugin,
          grandchildren.plugin,
          ...(guardPlugin ? [guardPlugin] : []),
        ],
        errorHandler: (error) => {
          log(`rrweb: ${error instanceof Error ? error.message : String(error)}`)
          return true
        },
      })
    } catch (error) {
      warn(`recording could not start: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  const detachAsk = askParent(win, options.parentOrigins, PARENT_ANSWER_MS, {
    listening: () => {
      relaying = true
      log('the parent page records this frame; no session of its own')
    },
    snapshot: () => {
      if (stopped || !relaying) return
      if (!stopRecording) return startRelay()
      try {
        // Through the guard: rrweb's own snapshot would leave the parts it stopped out.
        if (guard) guard.snapshot()
        else record.takeFullSnapshot()
      } catch {
        // rrweb has not started yet (before DOMContentLoaded); it snapshots when it does.
      }
    },
    timeout: () => {
      if (stopped) return
      log('no recording parent of parentOrigins answered; this frame records its own session')
      grandchildren.detach()
      uninstallCapture()
      own = startRecorder(options, internals, warn)
    },
  })

  /** Stops the relay: a relaying frame sends and stores nothing of its own. */
  const halt = () => {
    guard?.stop()
    try {
      stopRecording?.()
    } catch {
      // rrweb teardown failures must not reach the page.
    }
    grandchildren.detach()
    uninstallCapture()
  }

  return {
    identify: (userId, properties) => {
      // A relayed frame has no session to name: identify() belongs in the top page.
      own?.identify(userId, properties)
    },
    stop: async () => {
      if (stopped) return
      stopped = true
      detachAsk()
      if (own) return own.stop()
      halt()
    },
    discard: () => {
      if (stopped) return
      stopped = true
      detachAsk()
      if (own) own.discard()
      else halt()
    },
  }
}
