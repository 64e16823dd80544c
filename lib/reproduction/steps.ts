/**
 * The user's actions as test steps: page loads the user started become `goto`s, while loads
 * and SPA route changes that followed a click are left to that click; repeated inputs into one
 * field collapse into the last value; only the last MAX_STEPS steps are kept.
 */
import type { TrailEntry, TrailTarget } from '@/lib/analysis/trail'
import type { Action } from './moment'

export const MAX_STEPS = 30
/** A load this soon after a click or an input is taken to be its result (a link, a submit). */
const CAUSED_MS = 5_000

type InputEntry = Extract<TrailEntry, { kind: 'input' }>

export type Step =
  | { kind: 'goto'; url: string; pageUrl: string }
  | { kind: 'click'; target: TrailTarget; pageUrl: string }
  | ({ kind: 'input' } & Pick<InputEntry, 'target' | 'control' | 'value' | 'masked' | 'checked' | 'pageUrl'>)

export interface StepPlan {
  /** The page the kept steps start on. */
  entryUrl: string
  steps: Step[]
  /** Steps before the kept ones, left out to bound the test. */
  dropped: Step[]
}

function toSteps(actions: readonly Action[]): Step[] {
  const steps: Step[] = []
  let previous: Action | null = null
  for (const action of actions) {
    if (action.kind === 'navigation') {
      const caused =
        previous !== null && previous.kind !== 'navigation' && action.at - previous.at <= CAUSED_MS
      // A route change without a click (a redirect in code, the back button) repeats by itself or not at all.
      if (action.change === 'load' && !caused)
        steps.push({ kind: 'goto', url: action.url, pageUrl: action.pageUrl })
    } else if (action.kind === 'click') {
      steps.push({ kind: 'click', target: action.target, pageUrl: action.pageUrl })
    } else {
      const last = steps.at(-1)
      const step: Step = {
        kind: 'input',
        target: action.target,
        control: action.control,
        value: action.value,
        masked: action.masked,
        checked: action.checked,
        pageUrl: action.pageUrl,
      }
      // Inputs are recorded as the user types: only the field's last value matters.
      if (last?.kind === 'input' && last.target.selector === action.target.selector)
        steps[steps.length - 1] = step
      else steps.push(step)
    }
    previous = action
  }
  return steps
}

/** `fallbackUrl`: the page to open when no step says where the user was. */
export function planSteps(actions: readonly Action[], fallbackUrl: string, maxSteps = MAX_STEPS): StepPlan {
  const all = toSteps(actions)
  const cut = Math.max(0, all.length - maxSteps)
  const dropped = all.slice(0, cut)
  const steps = all.slice(cut)
  const first = steps[0]
  if (!first) return { entryUrl: fallbackUrl, steps, dropped }
  if (first.kind === 'goto') return { entryUrl: first.url, steps: steps.slice(1), dropped }
  return { entryUrl: first.pageUrl, steps, dropped }
}
