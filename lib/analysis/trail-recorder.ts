/**
 * Builds the session trail (trail.ts) during the analysis pass: the handlers that already read
 * clicks, typing, pages, console, errors and requests hand each one over here. Every string is
 * cut to TRAIL_LIMITS as it comes in and the list stops growing at TRAIL_LIMITS.entries, so a
 * session of any length costs at most one bounded trail.
 */
import { boundedJson } from './bounded-json'
import { consoleLevel, consoleMessage } from './console-message'
import { jsonUtf8Length } from './json-size'
import type { Obj } from './rrweb'
import { storableText } from './storable'
import { cutText, type SessionTrail, TRAIL_LIMITS, type TrailEntry, type TrailTarget } from './trail'

type Entry<K extends TrailEntry['kind']> = Extract<TrailEntry, { kind: K }>
type Fields<K extends TrailEntry['kind']> = Omit<Entry<K>, 'kind' | 'at' | 'pageUrl'>
type InputShown = Pick<Entry<'input'>, 'value' | 'masked' | 'length' | 'checked'>

const REPEAT_MS = 1000
// A rage click makes dead clicks on its element within this window moot, as findings.ts does.
const SUPERSEDE_MS = 60_000
// Rage and dead clicks are decided seconds after the click (at most the dead detector's 100
// pending clicks): room for them beyond the cap, so the time-sorted cut stays a true prefix.
const LATE_ROOM = 128
/**
 * The whole trail as UTF-8 JSON stays under this many bytes: it crosses a worker and is kept
 * as a job step's result (at most 4 MB, with the findings) before it is stored. Every entry at
 * every limit (a 4,000 character stack on each of 2,000 errors) would be several times that.
 */
const MAX_TRAIL_JSON_BYTES = 1_000_000

export interface InputChange {
  control: Entry<'input'>['control']
  /** The value as the recorder sent it, or null when the event had none. */
  text: string | null
  checked: boolean | null
  /** Password fields: never keep what the recorder sent, masked or not. */
  secret: boolean
}

/**
 * What a field's value may show: rrweb masks a value as one `*` per character. These are the
 * fields each keystroke into the same field updates.
 */
function shownInput(change: InputChange): InputShown {
  // rrweb reports isChecked for every input; only toggles have a state to show.
  if (change.control === 'toggle') return { value: null, masked: false, length: 0, checked: change.checked }
  const text = change.text ?? ''
  const length = text.length
  if (change.secret) return { value: null, masked: true, length, checked: null }
  let masked = length > 0
  for (let i = 0; masked && i < length; i++) masked = text.charCodeAt(i) === 42
  return { value: masked ? null : keep(text, TRAIL_LIMITS.value), masked, length, checked: null }
}

/**
 * `text` cut to `max` and made storable: Postgres refuses NUL and an unpaired surrogate in a
 * jsonb string, and one such character from a page must not keep the whole trail out.
 */
export function keep(text: string, max: number): string {
  return storableText(cutText(text, max))
}

export function cutLabel(text: string | null): string | null {
  return text === null ? null : keep(text, TRAIL_LIMITS.label)
}

export function cutUrl(url: string): string {
  return keep(url, TRAIL_LIMITS.url)
}

export class TrailRecorder {
  private readonly entries: TrailEntry[] = []
  private truncated = false
  private readonly superseded = new Set<TrailEntry>()
  /** The latest click or input, for collapsing repeats into it. */
  private lastAction: { entry: Entry<'click'> | Entry<'input'>; key: string; at: number } | null = null
  private readonly deadClicks: { entry: Entry<'dead_click'>; key: string }[] = []
  /** The page URL of the latest entry and its cut form: a page's entries all share it. */
  private page = { url: '', cut: '' }

  /**
   * Whether one more entry fits; when it does not, the trail is marked truncated. Every
   * method asks before it builds anything, so past the cap an event costs the trail nothing.
   */
  private fits(late = false): boolean {
    if (this.entries.length < TRAIL_LIMITS.entries + (late ? LATE_ROOM : 0)) return true
    this.truncated = true
    return false
  }

  private pageUrl(url: string): string {
    if (url !== this.page.url) this.page = { url, cut: cutUrl(url) }
    return this.page.cut
  }

  // Each entry is written as one literal, its fields in a fixed order: entries of a kind share
  // one shape, which keeps creating and measuring them cheap.
  private add<E extends TrailEntry>(entry: E): E {
    this.entries.push(entry)
    return entry
  }

  /**
   * True (and the trail marked truncated) when an ordinary entry no longer fits: callers skip
   * the work of building one, such as resolving a request URL.
   */
  full(): boolean {
    return !this.fits()
  }

  navigation(at: number, url: string, change: 'load' | 'navigation'): void {
    this.lastAction = null
    if (!this.fits()) return
    this.add({ kind: 'navigation', at, pageUrl: this.pageUrl(url), url: cutUrl(url), change })
  }

  /**
   * A click; repeats on the same element within a second add to its count. `target` is
   * called only for a new entry that fits: naming the element (role, name, selector, every
   * string cut) is the costly part, and a repeat or a full trail does not need it.
   */
  click(at: number, pageUrl: string, key: string, target: () => TrailTarget): void {
    const last = this.lastAction
    if (last?.entry.kind === 'click' && last.key === key && at - last.at <= REPEAT_MS) {
      last.entry.count++
      last.at = at
      return
    }
    const entry = this.fits()
      ? this.add({ kind: 'click', at, pageUrl: this.pageUrl(pageUrl), target: target(), count: 1 })
      : null
    this.lastAction = entry ? { entry, key, at } : null
  }

  /**
   * A change to a field; keystrokes into the field just typed in update its entry. `target`
   * is called only for a new entry that fits, as for clicks.
   */
  input(at: number, pageUrl: string, key: string, target: () => TrailTarget, change: InputChange): void {
    const last = this.lastAction
    if (last?.entry.kind === 'input' && last.key === key) {
      Object.assign(last.entry, shownInput(change))
      last.at = at
      return
    }
    let entry: Entry<'input'> | null = null
    if (this.fits()) {
      const { value, masked, length, checked } = shownInput(change)
      entry = this.add({
        kind: 'input',
        at,
        pageUrl: this.pageUrl(pageUrl),
        target: target(),
        control: change.control,
        value,
        masked,
        length,
        checked,
      })
    }
    this.lastAction = entry ? { entry, key, at } : null
  }

  /** A console plugin message; its level and text are read only when the entry fits. */
  console(at: number, pageUrl: string, payload: Obj): void {
    if (!this.fits()) return
    this.add({
      kind: 'console',
      at,
      pageUrl: this.pageUrl(pageUrl),
      level: keep(consoleLevel(payload), TRAIL_LIMITS.label),
      message: keep(consoleMessage(payload, TRAIL_LIMITS.message), TRAIL_LIMITS.message),
    })
  }

  /** `trace` holds the stack's lines; only as many are joined as the stack limit keeps. */
  error(
    at: number,
    pageUrl: string,
    message: string,
    trace: readonly string[],
    source: Entry<'error'>['source'],
    /** The stack in original frames, given only when some of them mapped (docs/source-maps.md). */
    originalStack?: string,
  ): void {
    if (!this.fits()) return
    let stack = ''
    for (const line of trace) {
      if (stack.length > TRAIL_LIMITS.stack) break
      stack = stack ? `${stack}\n${line}` : line
    }
    this.add({
      kind: 'error',
      at,
      pageUrl: this.pageUrl(pageUrl),
      message: keep(message, TRAIL_LIMITS.message),
      stack: stack ? keep(stack, TRAIL_LIMITS.stack) : null,
      ...(originalStack ? { originalStack: keep(originalStack, TRAIL_LIMITS.stack) } : {}),
      source,
    })
  }

  /** Callers ask full() first: resolving the request's URL is the costly part (network.ts). */
  request(at: number, pageUrl: string, fields: Fields<'request'>): void {
    if (!this.fits()) return
    this.add({
      kind: 'request',
      at,
      pageUrl: this.pageUrl(pageUrl),
      method: keep(fields.method, TRAIL_LIMITS.label),
      url: cutUrl(fields.url),
      status: fields.status,
      durationMs: fields.durationMs,
      failed: fields.failed,
    })
  }

  /** A reported rage click; `key` identifies its element the way findings do. */
  rageClick(at: number, pageUrl: string, key: string, target: () => TrailTarget, count: number): void {
    if (this.fits(true))
      this.add({ kind: 'rage_click', at, pageUrl: this.pageUrl(pageUrl), target: target(), count })
    for (const dead of this.deadClicks)
      if (dead.key === key && Math.abs(dead.entry.at - at) <= SUPERSEDE_MS) this.superseded.add(dead.entry)
  }

  deadClick(at: number, pageUrl: string, key: string, target: () => TrailTarget): void {
    if (!this.fits(true)) return
    const entry = this.add({ kind: 'dead_click', at, pageUrl: this.pageUrl(pageUrl), target: target() })
    this.deadClicks.push({ entry, key })
  }

  custom(at: number, pageUrl: string, tag: string, payload: unknown): void {
    if (!this.fits()) return
    this.add({
      kind: 'custom',
      at,
      pageUrl: this.pageUrl(pageUrl),
      tag: keep(tag, TRAIL_LIMITS.message),
      payload:
        payload === undefined ? null : keep(boundedJson(payload, TRAIL_LIMITS.payload), TRAIL_LIMITS.payload),
    })
  }

  /** The entries in time order (ties in the order they happened), cut to the bounds. */
  result(): SessionTrail {
    const order = this.entries.map((entry, index) => ({ entry, index }))
    order.sort((a, b) => a.entry.at - b.entry.at || a.index - b.index)
    const entries: TrailEntry[] = []
    let truncated = this.truncated
    let bytes = 0
    for (const { entry } of order) {
      if (this.superseded.has(entry)) continue
      if (entries.length >= TRAIL_LIMITS.entries) {
        truncated = true
        break
      }
      bytes += jsonUtf8Length(entry)
      if (bytes > MAX_TRAIL_JSON_BYTES) {
        truncated = true
        break
      }
      entries.push(entry)
    }
    return { entries, truncated }
  }
}
