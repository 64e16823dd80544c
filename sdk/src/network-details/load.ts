/// <reference lib="dom" />
/**
 * How the recorder's core gets the network details part (docs/network-details.md) without
 * carrying it: the script tag build adds `sdk-network.js` from its own directory, which
 * registers itself on `window`; the ES module build imports it dynamically (index.ts). Until
 * it has loaded, requests are recorded without details.
 */
import type { ResolvedNetworkDetails } from '../options'
import type { DetailCapturer, NetworkPlugin } from '../plugins/network'

export type CreateDetailCapturer = (options: ResolvedNetworkDetails) => DetailCapturer
export type LoadNetworkDetails = () => Promise<CreateDetailCapturer>

/** Bumped when the part's contract with the core changes: a cached older part is not used. */
export const PART_VERSION = 1
/** The file name of the part, beside `sdk.js`. */
export const PART_FILE = 'sdk-network.js'

export interface NetworkDetailsPart {
  version: number
  create: CreateDetailCapturer
}

declare global {
  interface Window {
    __sessionReplayNetworkDetails?: NetworkDetailsPart
  }
}

const registered = (): CreateDetailCapturer | null => {
  const part = window.__sessionReplayNetworkDetails
  return part && part.version === PART_VERSION && typeof part.create === 'function' ? part.create : null
}

/**
 * Loads the part as a script element next to `scriptUrl` (the URL of sdk.js), with the same
 * `crossorigin` and CSP nonce as that script.
 */
export function scriptPartLoader(
  scriptUrl: string | undefined,
  nonce: string,
  crossOrigin: string | null = null,
): LoadNetworkDetails {
  return () =>
    new Promise<CreateDetailCapturer>((resolve, reject) => {
      const ready = registered()
      if (ready) return resolve(ready)
      if (!scriptUrl) return reject(new Error('the URL of sdk.js is unknown'))
      const element = document.createElement('script')
      element.src = new URL(PART_FILE, scriptUrl).href
      element.async = true
      // As sdk.js was loaded: a page that loads it without CORS gets the part the same way.
      if (crossOrigin !== null) element.crossOrigin = crossOrigin
      if (nonce) element.nonce = nonce
      element.onload = () => {
        const create = registered()
        if (create) resolve(create)
        else reject(new Error(`${element.src} is not the part this sdk.js expects`))
      }
      element.onerror = () => reject(new Error(`could not load ${element.src}`))
      ;(document.head ?? document.documentElement).appendChild(element)
    })
}

/** Starts loading the part and hands it to the network plugin when it arrives. */
export function attachNetworkDetails(
  network: NetworkPlugin,
  options: ResolvedNetworkDetails,
  load: LoadNetworkDetails | undefined,
  warn: (message: string) => void,
): void {
  if (!load) {
    warn('networkDetails: this build cannot load the network details part')
    return
  }
  load().then(
    (create) => network.setDetailCapturer(create(options)),
    (error: unknown) =>
      warn(`networkDetails: not captured: ${error instanceof Error ? error.message : String(error)}`),
  )
}
