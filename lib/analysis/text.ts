/**
 * Deterministic titles, description sentences and failure lines (docs/design/analysis.md §4.6). The same
 * inputs always give the same text; no input values, no query strings.
 */
import { elementLabel } from './dom/element'
import { truncate } from './normalize'
import { formatOffset } from './timeline'
import type { ElementDescriptor, Finding } from './types'

/** `“Buy now” (button#buy)`, or the selector alone when the element has no label. */
export function elementPhrase(element: ElementDescriptor, stable: string): string {
  const label = truncate(elementLabel(element), 60)
  return label ? `“${label}” (${stable})` : stable
}

export function jsErrorTitle(
  type: string,
  message: string,
  path: string,
  click: ElementDescriptor | null,
): string {
  const text = truncate(message === type ? type : `${type}: ${message}`, 140)
  const label = click ? truncate(elementLabel(click), 60) : ''
  const after = click ? ` after clicking ${label ? `“${label}”` : click.tag}` : ''
  return `${text}${after} on ${path}`
}

export function consoleErrorTitle(message: string, path: string): string {
  return `Console error: ${truncate(message, 140)} on ${path}`
}

export function networkOutcome(status: number): string {
  return status === 0 ? 'fails with no response' : `returns ${status}`
}

export function networkTitle(method: string, endpoint: string, status: number, path: string): string {
  return `${method} ${endpoint} ${networkOutcome(status)} on ${path}`
}

export function rageTitle(element: ElementDescriptor, stable: string, path: string): string {
  return `Rage clicks on ${elementPhrase(element, stable)} on ${path}`
}

export function deadTitle(element: ElementDescriptor, stable: string, path: string): string {
  return `Unresponsive ${elementPhrase(element, stable)} on ${path}`
}

/** `It happened 2 times, first 3.1 s and last 9.0 s after the session started.` */
export function occurrenceSentence(finding: Finding, sessionStart: number): string {
  const first = formatOffset(finding.firstTimestamp - sessionStart)
  if (finding.occurrences === 1) return `It happened once, ${first} after the session started.`
  const last = formatOffset(finding.lastTimestamp - sessionStart)
  return `It happened ${finding.occurrences} times, first ${first} and last ${last} after the session started.`
}
