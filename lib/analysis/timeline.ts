/**
 * The user's recent actions, for steps to replicate (docs/design/analysis.md §4.6). A small ring: steps
 * show the last actions before a problem, never the whole session. Repeated clicks on one
 * element and keystrokes into one field collapse into one action each.
 */
import { displayUrl } from './url'

export type Action =
  | { kind: 'page'; seq: number; at: number; url: string; change: 'load' | 'navigation' }
  | {
      kind: 'click'
      seq: number
      at: number
      url: string
      key: string
      label: string
      selector: string
      count: number
    }
  | {
      kind: 'input'
      seq: number
      at: number
      url: string
      key: string
      field: string
      control: 'text' | 'toggle' | 'select' | 'other'
      length: number
      checked: boolean | null
    }

const CAPACITY = 48
const MAX_STEPS = 30

export function formatOffset(ms: number): string {
  const seconds = Math.max(0, ms) / 1000
  if (seconds < 60) return `${seconds.toFixed(1)} s`
  const minutes = Math.floor(seconds / 60)
  return `${minutes} min ${String(Math.floor(seconds - minutes * 60)).padStart(2, '0')} s`
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`
}

function actionText(action: Action): string {
  switch (action.kind) {
    case 'page':
      return action.change === 'load'
        ? `Opened ${displayUrl(action.url)}`
        : `Navigated to ${displayUrl(action.url)}`
    case 'click': {
      const what = action.label ? `“${action.label}” (${action.selector})` : action.selector
      return `Clicked ${what}${action.count > 1 ? ` ${action.count} times` : ''}`
    }
    case 'input':
      if (action.control === 'toggle') return `${action.checked ? 'Checked' : 'Unchecked'} ${action.field}`
      if (action.control === 'select') return `Chose an option in ${action.field}`
      if (action.control === 'other') return `Changed ${action.field}`
      if (action.length === 0) return `Cleared ${action.field}`
      return `Typed ${plural(action.length, 'character')} into ${action.field}`
  }
}

export class Timeline {
  private readonly ring: Action[] = []
  private head = 0

  private last(): Action | undefined {
    return this.ring.length === 0 ? undefined : this.ring[(this.head + this.ring.length - 1) % CAPACITY]
  }

  private push(action: Action): void {
    if (this.ring.length < CAPACITY) this.ring.push(action)
    else {
      this.ring[this.head] = action
      this.head = (this.head + 1) % CAPACITY
    }
  }

  page(seq: number, at: number, url: string, change: 'load' | 'navigation'): void {
    this.push({ kind: 'page', seq, at, url, change })
  }

  click(seq: number, at: number, url: string, key: string, label: string, selector: string): void {
    const last = this.last()
    if (last?.kind === 'click' && last.key === key && at - last.at <= 1000) {
      last.count++
      last.at = at
      return
    }
    this.push({ kind: 'click', seq, at, url, key, label, selector, count: 1 })
  }

  input(seq: number, at: number, url: string, key: string, field: string, change: InputChange): void {
    const last = this.last()
    if (last?.kind === 'input' && last.key === key) {
      last.length = change.length
      last.checked = change.checked
      last.at = at
      return
    }
    this.push({ kind: 'input', seq, at, url, key, field, ...change })
  }

  /** Numbered steps up to the action with sequence `uptoSeq`, then the failure line. */
  steps(uptoSeq: number, failure: string, failureAt: number, sessionStart: number, pageUrl: string): string {
    const actions: Action[] = []
    for (let i = 0; i < this.ring.length; i++) {
      const action = this.ring[(this.head + i) % CAPACITY]!
      if (action.seq <= uptoSeq) actions.push(action)
    }
    const shown = actions.slice(-MAX_STEPS)
    const lines: string[] = []
    const first = shown[0]
    // Without its page load the first step would not say where the user was.
    if (first?.kind !== 'page') {
      const url = first?.url || pageUrl
      if (url) lines.push(`Be on ${displayUrl(url)}`)
    }
    for (const action of shown) lines.push(actionText(action))
    lines.push(`${failure} (${formatOffset(failureAt - sessionStart)} after the session started)`)
    return lines.map((line, i) => `${i + 1}. ${line}`).join('\n')
  }
}

export interface InputChange {
  control: 'text' | 'toggle' | 'select' | 'other'
  length: number
  checked: boolean | null
}
