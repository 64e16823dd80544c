/**
 * rage_click (docs/design/analysis.md §4.3): at least 4 clicks on the same resolved element, each within
 * 1 s and 30 px of the previous, that the page did not answer — no response within 1 s of the
 * last click, or responses after fewer than half of them. Elements made for repeated clicks
 * (text fields, steppers, toggles, selects, labels) and text selection are excluded.
 */
import type { ClickRecord, Context } from '../context'
import { rageExclusion } from '../dom/target'
import { clickParts } from '../fingerprint'
import { elementPhrase, rageTitle } from '../text'

const RAGE_MIN_CLICKS = 4
const GAP_MS = 1000
const DISTANCE_PX = 30
const MAX_POSITIONS = 20

interface Burst {
  first: ClickRecord
  last: ClickRecord
  count: number
  /** Clicks before the last one that a response followed before the next click. */
  responded: number
  selection: boolean
  positions: { x: number | null; y: number | null; at: number }[]
}

function near(a: ClickRecord, b: ClickRecord): boolean {
  if (a.x === null || a.y === null || b.x === null || b.y === null) return true
  // Manhattan distance, as PostHog measures it.
  return Math.abs(a.x - b.x) + Math.abs(a.y - b.y) <= DISTANCE_PX
}

export class RageDetector {
  private burst: Burst | null = null

  constructor(private readonly ctx: Context) {}

  get nextDeadline(): number {
    return this.burst ? this.burst.last.at + GAP_MS : Number.POSITIVE_INFINITY
  }

  click(click: ClickRecord): void {
    const burst = this.burst
    if (
      burst &&
      click.key === burst.last.key &&
      click.at - burst.last.at <= GAP_MS &&
      near(click, burst.last)
    ) {
      const response = this.ctx.responses.firstResponse({ seq: burst.last.startSeq, at: burst.last.at })
      if (response && response.seq < click.seq) burst.responded++
      burst.last = click
      burst.count++
      if (burst.positions.length < MAX_POSITIONS)
        burst.positions.push({ x: click.x, y: click.y, at: click.at })
      return
    }
    this.close()
    this.burst = {
      first: click,
      last: click,
      count: 1,
      responded: 0,
      selection: false,
      positions: [{ x: click.x, y: click.y, at: click.at }],
    }
  }

  /**
   * A double-click inside a burst means text selection (§4.3) — except on explicit controls,
   * where any fast clicking fires dblclick and no text gets selected.
   */
  doubleClick(): void {
    if (this.burst && this.burst.last.target?.interactivity !== 'explicit') this.burst.selection = true
  }

  /** Text was selected: the clicks were selecting, not raging. */
  selection(): void {
    if (this.burst) this.burst.selection = true
  }

  flush(now: number): void {
    if (this.burst && now - this.burst.last.at > GAP_MS) this.close()
  }

  finish(): void {
    this.close()
  }

  private close(): void {
    const burst = this.burst
    this.burst = null
    if (!burst || burst.count < RAGE_MIN_CLICKS || burst.selection) return
    const { first, last } = burst
    const target = last.target
    if (!target || rageExclusion(target.node, target.element)) return
    const response = this.ctx.responses.firstResponse({ seq: last.startSeq, at: last.at })
    const lastResponded = response !== null && response.at - last.at <= GAP_MS
    const responded = burst.responded + (lastResponded ? 1 : 0)
    if (lastResponded && responded * 2 >= burst.count) return
    const { element } = target
    const page = last.page
    const phrase = elementPhrase(element, last.stable)
    const parts = clickParts(page.pathPattern, last.stable, element.text)
    const reported = this.ctx.report({
      kind: 'rage_click',
      parts,
      at: first.at,
      until: last.at,
      // Steps stop before the burst: the failure line itself says how often it was clicked.
      seq: first.seq - 1,
      page,
      trigger: { element, timestamp: first.at, url: page.url },
      evidence: {
        clicks: burst.count,
        respondedClicks: responded,
        durationMs: last.at - first.at,
        positions: burst.positions,
        selector: element.selector,
        interactive: target.interactivity,
      },
      title: rageTitle(element, last.stable, page.pathPattern),
      failure: `Clicked ${phrase} ${burst.count} times in ${((last.at - first.at) / 1000).toFixed(1)} s without a response`,
      summary: `The user clicked ${phrase} ${burst.count} times in quick succession on ${page.pathPattern} and the page did not respond.`,
      priority: {
        base: target.interactivity ? 'high' : 'medium',
        paths: [page.pathPattern],
        thirdParty: false,
      },
    })
    if (!reported) return
    this.ctx.trail.rageClick(first.at, page.url, parts.join('|'), last.trailTarget, burst.count)
    const entry = { text: element.text, selector: element.selector, url: page.url, at: first.at }
    this.ctx.digest.add('rageClicks', entry)
    this.ctx.digest.dropDeadClicks(entry.selector, entry.text, first.at, 60_000)
  }
}
