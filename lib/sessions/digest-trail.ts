import { z } from 'zod'
import { DIGEST_LIMIT } from '@/lib/analysis/digest'
import type { SessionTrail, TrailEntry, TrailTarget } from '@/lib/analysis/trail'

/**
 * A trail rebuilt from the compact digest, for sessions analysed before trails were stored:
 * fewer kinds (no console, successful request, custom event or input value) and fewer fields
 * (no stack, no element role or tag). At most DIGEST_LIMIT entries of each list.
 */

const At = z.number().finite()
const Clicked = z.object({ text: z.string(), selector: z.string(), url: z.string(), at: At })
// Written by an earlier pass, maybe by an older version: read leniently, list by list.
const list = <T extends z.ZodType>(item: T) => z.array(item).catch([])
const StoredDigest = z.object({
  pages: list(z.object({ url: z.string(), at: At })),
  clicks: list(Clicked),
  inputs: list(z.object({ field: z.string(), length: z.number(), url: z.string(), at: At })),
  errors: list(z.object({ message: z.string(), url: z.string(), at: At })),
  networkFailures: list(z.object({ method: z.string(), status: z.number(), url: z.string(), at: At })),
  rageClicks: list(Clicked),
  deadClicks: list(Clicked),
})

function target(selector: string, text: string): TrailTarget {
  return {
    tag: '',
    selector,
    role: null,
    name: text || null,
    text,
    testId: null,
    id: null,
    type: null,
    href: null,
  }
}

/**
 * The digest's entries as a trail in time order, truncated when a list reached the digest's
 * cap; null when there is no usable digest.
 */
export function trailFromDigest(digest: unknown): SessionTrail | null {
  if (digest === null || typeof digest !== 'object') return null
  const parsed = StoredDigest.safeParse(digest)
  if (!parsed.success) return null
  const d = parsed.data
  const entries: TrailEntry[] = [
    ...d.pages.map(
      (p): TrailEntry => ({
        kind: 'navigation',
        at: p.at,
        pageUrl: p.url,
        url: p.url,
        change: 'navigation',
      }),
    ),
    ...d.clicks.map(
      (c): TrailEntry => ({
        kind: 'click',
        at: c.at,
        pageUrl: c.url,
        target: target(c.selector, c.text),
        count: 1,
      }),
    ),
    ...d.inputs.map(
      (i): TrailEntry => ({
        kind: 'input',
        at: i.at,
        pageUrl: i.url,
        target: target(i.field, ''),
        control: 'other',
        value: null,
        masked: false,
        length: i.length,
        checked: null,
      }),
    ),
    ...d.errors.map(
      (e): TrailEntry => ({
        kind: 'error',
        at: e.at,
        pageUrl: e.url,
        message: e.message,
        stack: null,
        source: 'uncaught',
      }),
    ),
    ...d.networkFailures.map(
      (r): TrailEntry => ({
        kind: 'request',
        at: r.at,
        pageUrl: r.url,
        method: r.method,
        url: r.url,
        status: r.status === 0 ? null : r.status,
        durationMs: null,
        failed: true,
      }),
    ),
    ...d.rageClicks.map(
      (c): TrailEntry => ({
        kind: 'rage_click',
        at: c.at,
        pageUrl: c.url,
        target: target(c.selector, c.text),
        // The digest keeps no count: the least a rage click is (the detector's threshold).
        count: 4,
      }),
    ),
    ...d.deadClicks.map(
      (c): TrailEntry => ({
        kind: 'dead_click',
        at: c.at,
        pageUrl: c.url,
        target: target(c.selector, c.text),
      }),
    ),
  ]
  const lists = [d.pages, d.clicks, d.inputs, d.errors, d.networkFailures, d.rageClicks, d.deadClicks]
  return {
    // Stable: at equal times the order above (page, click, input, error...) holds.
    entries: entries.sort((a, b) => a.at - b.at),
    truncated: lists.some((list) => list.length >= DIGEST_LIMIT),
  }
}
