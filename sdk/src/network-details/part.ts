/// <reference lib="dom" />
/**
 * Entry of `sdk-network.js`, the network details part of the script tag build: registers the
 * capturer where the core (load.ts) looks for it once the script has run.
 */
import { createDetailCapturer } from './capture'
import { PART_VERSION } from './load'

window.__sessionReplayNetworkDetails = { version: PART_VERSION, create: createDetailCapturer }
