/**
 * The element of a click or an input as the trail names it (trail.ts TrailTarget): the same
 * selector the steps to replicate show, the role a role-based locator would use and the name
 * a person would.
 */
import type { DomNode } from './dom/document'
import { stableSelector } from './dom/element'
import { roleOf } from './dom/role'
import { TRAIL_LIMITS, type TrailTarget } from './trail'
import { cutLabel, cutUrl, keep } from './trail-recorder'
import type { ElementDescriptor } from './types'
import { displayUrl } from './url'

/** The selector shown for an element: the stable one when it identifies anything. */
export function shownSelector(element: ElementDescriptor, stable = stableSelector(element)): string {
  return /[#.[]/.test(stable) ? stable : element.selector
}

/**
 * `field` is a form field's label (dom/field.ts), null for other elements. A textarea's text
 * is what was typed into it, so it is never shown. `role` is the node's role when the target
 * is named later than the event (its attributes may have changed since).
 */
export function trailTarget(
  node: DomNode | null,
  element: ElementDescriptor,
  shown: string,
  field: string | null,
  role: string | null = node ? roleOf(node) : element.role,
): TrailTarget {
  const text = node?.tag === 'textarea' ? '' : element.text
  return {
    tag: keep(element.tag, TRAIL_LIMITS.label),
    selector: keep(shown, TRAIL_LIMITS.label),
    role: cutLabel(role),
    name: cutLabel(element.ariaLabel || field || text || null),
    text: keep(text, TRAIL_LIMITS.label),
    testId: cutLabel(element.testId),
    id: cutLabel(element.id),
    type: cutLabel(element.type),
    href: element.href === null ? null : cutUrl(displayUrl(element.href)),
  }
}
