/**
 * The user's own actions — clicks and typing — turned into click records for the detectors,
 * steps for the timeline, entries for the digest (docs/design/analysis.md §4.2.2) and for the
 * session trail. Steps and digest keep only the length of what was typed; the trail keeps a
 * value only when the recorder did not mask it, and cut short (trail-recorder.ts).
 */
import type { ClickRecord, Context } from './context'
import type { DomNode } from './dom/document'
import { describeElement, elementLabel, stableSelector } from './dom/element'
import { fieldControl, fieldLabel } from './dom/field'
import { roleOf } from './dom/role'
import { resolveClickTarget } from './dom/target'
import { targetIdentity } from './follow-up'
import { num, type Obj, str } from './rrweb'
import { elementPhrase } from './text'
import type { TrailTarget } from './trail'
import { shownSelector, trailTarget } from './trail-target'
import type { ElementDescriptor } from './types'

const UNKNOWN_ELEMENT: ElementDescriptor = {
  tag: 'unknown',
  id: null,
  classes: [],
  role: null,
  ariaLabel: null,
  testId: null,
  name: null,
  type: null,
  href: null,
  text: '',
  selector: 'unknown',
}

const FIELD_TAG = /^(?:input|textarea|select)$/
const MAX_LABELS = 500

export class UserActions {
  private mouseDown: { seq: number; at: number } | null = null
  private readonly fieldLabels = new Map<string, string>()

  constructor(private readonly ctx: Context) {}

  /** Labels are per document: ids restart at every FullSnapshot. */
  documentLoaded(): void {
    this.fieldLabels.clear()
  }

  pressed(at: number, seq: number): void {
    this.ctx.responses.mark(seq)
    this.mouseDown = { seq, at }
  }

  /** Records a click; returns it with the click before it, for the detectors. */
  click(data: Obj, at: number, seq: number): { click: ClickRecord; previous: ClickRecord | undefined } {
    const { doc, page, clicks, responses, timeline, digest, store, trail } = this.ctx
    const id = num(data.id)
    const target = id === null ? null : resolveClickTarget(doc, id)
    const element = target?.element ?? UNKNOWN_ELEMENT
    const stable = stableSelector(element)
    const shown = shownSelector(element, stable)
    // A form field is named by its label, not by its content or its name attribute.
    const field = target && FIELD_TAG.test(target.node.tag) ? this.fieldName(target.node) : null
    const node = target?.node ?? null
    // Named only if an entry keeps it, maybe seconds later (a dead click): everything it reads
    // is fixed now except the node's attributes, so its role is read now.
    const role = node ? roleOf(node) : element.role
    let named: TrailTarget | null = null
    const down = this.mouseDown
    const click: ClickRecord = {
      seq,
      // A handler on mousedown answers before the Click event is even recorded.
      startSeq: down && at - down.at <= 1000 ? down.seq : seq,
      at,
      x: num(data.x),
      y: num(data.y),
      target,
      element,
      key: target ? `${doc.generation}:${target.node.id}` : `?:${id}`,
      stable,
      trailTarget: () => {
        named ??= trailTarget(node, element, shown, field, role)
        return named
      },
      page: page.current,
      errored: false,
    }
    this.mouseDown = null
    responses.mark(seq)
    const previous = clicks.last()
    clicks.push(click)
    const label = field ?? elementLabel(element)
    timeline.click(seq, at, page.current.url, click.key, label, shown)
    trail.click(at, page.current.url, click.key, click.trailTarget)
    digest.add('clicks', { text: element.text, selector: element.selector, url: page.current.url, at })
    store.followUps.action({
      visit: page.current.visit,
      at,
      target: targetIdentity(element),
      label: `clicked ${elementPhrase(element, shown)}`,
    })
    return { click, previous }
  }

  input(data: Obj, at: number, seq: number): void {
    const { doc, page, timeline, digest, store, trail } = this.ctx
    const id = num(data.id)
    const node = id === null ? undefined : doc.get(id)
    // Programmatic value changes are responses, not user actions.
    if (!node || data.userTriggered === false) return
    const control = fieldControl(node)
    const checked = typeof data.isChecked === 'boolean' ? data.isChecked : null
    // Checking a radio button also reports its unchecked siblings.
    if (control === 'toggle' && checked === false && node.attrs.type?.toLowerCase() === 'radio') return
    const key = `${doc.generation}:${node.id}`
    const field = this.fieldName(node)
    const text = str(data.text)
    const length = (text ?? '').length
    timeline.input(seq, at, page.current.url, key, field, { control, length, checked })
    trail.input(
      at,
      page.current.url,
      key,
      () => {
        const element = describeElement(doc, node)
        return trailTarget(node, element, shownSelector(element), field)
      },
      { control, text, checked, secret: node.attrs.type?.toLowerCase() === 'password' },
    )
    digest.input(key, { field, length, url: page.current.url, at })
    const verb = control === 'text' ? 'typed into' : 'changed'
    store.followUps.action({
      visit: page.current.visit,
      at,
      target: null,
      label: `${verb} ${field || 'a field'}`,
    })
  }

  private fieldName(node: DomNode): string {
    const key = `${this.ctx.doc.generation}:${node.id}`
    let field = this.fieldLabels.get(key)
    if (field === undefined) {
      field = fieldLabel(this.ctx.doc, node)
      if (this.fieldLabels.size < MAX_LABELS) this.fieldLabels.set(key, field)
    }
    return field
  }
}
