/// <reference lib="dom" />
/**
 * Entry of `sdk.js`, the script tag build (lib/sdk/snippet.ts): exposes
 * `window.SessionReplay` and starts at once when its tag carries `data-api-key` and
 * `data-ingest-url`, so capture is installed before the page's own scripts run.
 */
import { identify, initWith, setConsent, stop } from './index'
import { scriptPartLoader } from './network-details/load'
import type { RecorderOptions } from './options'

declare global {
  interface Window {
    SessionReplay?: {
      init(options: RecorderOptions): boolean
      identify(userId: string, properties?: Record<string, unknown>): void
      stop(): Promise<void>
      setConsent(consent: 'granted' | 'denied'): void
    }
  }
}

const script = document.currentScript instanceof HTMLScriptElement ? document.currentScript : null
const scriptUrl = script?.src || undefined
// The network details part is loaded from beside this script, only when the option is set.
const loadNetworkDetails = scriptPartLoader(scriptUrl, script?.nonce ?? '', script?.crossOrigin ?? null)

window.SessionReplay = {
  init: (options) => initWith(options, { scriptUrl, loadNetworkDetails }),
  identify,
  stop,
  setConsent,
}

const apiKey = script?.getAttribute('data-api-key')
const ingestUrl = script?.getAttribute('data-ingest-url')
const release = script?.getAttribute('data-release')
// Checked by resolveOptions like any option: a wrong value warns and starts nothing.
const consent = script?.getAttribute('data-consent') as RecorderOptions['consent'] | null
const storage = script?.getAttribute('data-storage') as RecorderOptions['storage'] | null
if (apiKey && ingestUrl)
  initWith(
    {
      apiKey,
      ingestUrl,
      ...(release ? { release } : {}),
      ...(consent ? { consent } : {}),
      ...(storage ? { storage } : {}),
    },
    { scriptUrl, loadNetworkDetails },
  )
