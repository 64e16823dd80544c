import Bowser from 'bowser'
import type { DEVICE_TYPES } from '@/db/schema'

/**
 * Real user agents are under 300 characters; the recorder's value is attacker-written, so
 * only this much is handed to the parser's regular expressions.
 */
export const USER_AGENT_PARSE_MAX = 512

const major = (version: string | undefined) => version?.match(/^\d{1,6}/)?.[0]

/** The OS as people name it: "Windows 10", "iOS 17", "Android 14", "macOS". */
function osName(os: { name?: string; version?: string; versionName?: string }): string | undefined {
  if (!os.name) return undefined
  if (os.name === 'Windows' && os.versionName) return `Windows ${os.versionName}`
  if ((os.name === 'iOS' || os.name === 'Android') && major(os.version))
    return `${os.name} ${major(os.version)}`
  return os.name
}

/**
 * "Chrome 131 on macOS" from a user-agent string; null when there is none or nothing in it
 * is recognised (the raw string is then the best description there is).
 */
export function describeUserAgent(userAgent: string | null | undefined): string | null {
  const ua = userAgent?.slice(0, USER_AGENT_PARSE_MAX).trim()
  if (!ua) return null
  const { browser, os } = Bowser.parse(ua)
  const name = browser.name ? [browser.name, major(browser.version)].filter(Boolean).join(' ') : undefined
  const system = osName(os)
  if (name && system) return `${name} on ${system}`
  return name ?? system ?? null
}

export interface UserAgentFacts {
  /** Bowser's browser name: "Chrome", "Firefox", "Safari", "Microsoft Edge"... */
  browser: string | null
  /** Bowser's OS name: "Windows", "macOS", "iOS", "Android", "Linux"... */
  os: string | null
  device: (typeof DEVICE_TYPES)[number] | null
}

/** The browser, OS and device type search matches on (docs/search.md#session-fields). */
export function userAgentFacts(userAgent: string | null | undefined): UserAgentFacts {
  const ua = userAgent?.slice(0, USER_AGENT_PARSE_MAX).trim()
  if (!ua) return { browser: null, os: null, device: null }
  const { browser, os, platform } = Bowser.parse(ua)
  const type = platform.type
  return {
    browser: browser.name ?? null,
    os: os.name ?? null,
    device: type === 'desktop' || type === 'mobile' || type === 'tablet' ? type : null,
  }
}
