/**
 * dead_click (docs/design/analysis.md §4.3): a click on an element that is or looks interactive, with no
 * response within 7 s (Sentry's timeout). Links to other windows, downloads, file inputs and
 * disabled elements are excluded; a js_error within 1 s is reported instead; near the end of
 * the session the click is undecidable unless an explicit control got ≥ 3 s of silence.
 */
import type { ClickRecord, Context } from '../context'
import { deadExclusion } from '../dom/target'
import { clickParts } from '../fingerprint'
import { deadTitle, elementPhrase } from '../text'
import { formatOffset } from '../timeline'

const DEAD_TIMEOUT_MS = 7000
const END_SILENCE_MS = 3000
const REPEAT_MS = 1000
const MAX_PENDING = 100

export class DeadDetector {
  private pending: ClickRecord[] = []

  constructor(private readonly ctx: Context) {}

  get nextDeadline(): number {
    const first = this.pending[0]
    return first ? first.at + DEAD_TIMEOUT_MS : Number.POSITIVE_INFINITY
  }

  click(click: ClickRecord, previous: ClickRecord | undefined): void {
    const target = click.target
    if (!target?.interactivity || deadExclusion(target.node)) return
    // Repeats within a second are one attempt (and a rage burst if they go on).
    if (previous && previous.key === click.key && click.at - previous.at <= REPEAT_MS) return
    if (this.pending.length >= MAX_PENDING) this.pending.shift()
    this.pending.push(click)
  }

  flush(now: number): void {
    while (this.pending.length > 0 && now - this.pending[0]!.at > DEAD_TIMEOUT_MS)
      this.decide(this.pending.shift()!, null)
  }

  finish(end: number): void {
    for (const click of this.pending) this.decide(click, end)
    this.pending = []
  }

  private decide(click: ClickRecord, end: number | null): void {
    const target = click.target
    if (!target || click.errored) return
    const response = this.ctx.responses.firstResponse({ seq: click.startSeq, at: click.at })
    if (response && response.at - click.at <= DEAD_TIMEOUT_MS) return
    let waited = DEAD_TIMEOUT_MS
    if (end !== null && end - click.at < DEAD_TIMEOUT_MS) {
      waited = end - click.at
      if (target.interactivity !== 'explicit' || waited < END_SILENCE_MS) return
    }
    const { element } = target
    const page = click.page
    const phrase = elementPhrase(element, click.stable)
    const parts = clickParts(page.pathPattern, click.stable, element.text)
    const reported = this.ctx.report({
      kind: 'dead_click',
      parts,
      at: click.at,
      seq: click.seq,
      page,
      trigger: { element, timestamp: click.at, url: page.url },
      evidence: {
        selector: element.selector,
        x: click.x,
        y: click.y,
        waitedMs: waited,
        interactive: target.interactivity,
      },
      title: deadTitle(element, click.stable, page.pathPattern),
      failure: `${phrase} does not respond within ${formatOffset(waited)}`,
      summary: `A click on ${phrase} on ${page.pathPattern} got no visible response within ${formatOffset(waited)}.`,
      priority: {
        base: target.interactivity === 'explicit' ? 'medium' : 'low',
        paths: [page.pathPattern],
        thirdParty: false,
      },
    })
    if (reported) {
      this.ctx.trail.deadClick(click.at, page.url, parts.join('|'), click.trailTarget)
      this.ctx.digest.add('deadClicks', {
        text: element.text,
        selector: element.selector,
        url: page.url,
        at: click.at,
      })
    }
  }
}
