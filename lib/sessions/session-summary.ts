import { cutText } from '@/lib/analysis/trail'
import type { SessionFigures } from './session-figures'
import { shortUrl } from './session-timeline'
import type { SummaryFact } from './summary-facts'

/** Longest summary, ours or the model's: a few sentences an agent reads before the timeline. */
export const SUMMARY_MAX_CHARS = 1_200

const LISTED = 3
const PAGE_CHARS = 80
const LABEL_CHARS = 60
const MESSAGE_CHARS = 160

/** One line of page text: whitespace collapsed, cut with the marker. */
function oneLine(text: string, max: number): string {
  return cutText(text.replace(/\s+/g, ' ').trim(), max)
}

function quoted(label: string, max = LABEL_CHARS): string {
  return `“${oneLine(label, max)}”`
}

function count(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : nouns}`
}

/** The first few distinct values, and how many more there were. */
function some(values: string[]): string {
  const distinct = [...new Set(values)]
  const shown = distinct.slice(0, LISTED).join(', ')
  return distinct.length > LISTED ? `${shown} and ${distinct.length - LISTED} more` : shown
}

function of(facts: SummaryFact[], kind: SummaryFact['kind']): SummaryFact[] {
  return facts.filter((fact) => fact.kind === kind)
}

/**
 * What the user did and what went wrong, in a few sentences, from the session's facts (its
 * stored trail, or its digest): pages, key actions, errors, failed requests, rage and dead
 * clicks. The page and error counts are the session's figures, as the sessions list shows them;
 * the facts name the pages and the first error. Deterministic, and never longer than SUMMARY_MAX_CHARS.
 */
export function deterministicSummary(facts: SummaryFact[] | null, figures: SessionFigures): string {
  if (facts === null) return 'This session has not been analysed yet: no summary of it exists.'
  const views = of(facts, 'navigation')
  const pages = views.map((fact) => oneLine(shortUrl(fact.label), PAGE_CHARS))
  const pageViews = figures.pages ?? views.length
  const distinct = new Set(pages).size
  const clicks = of(facts, 'click')
  const inputs = of(facts, 'input')
  const sentences: string[] = []
  if (pageViews > 0 && pages.length)
    sentences.push(
      `The user visited ${count(pageViews, 'page')}${
        distinct < pageViews && views.length === pageViews
          ? ` (${count(distinct, 'address', 'addresses')})`
          : ''
      }: ${some(pages)}.`,
    )
  const did: string[] = []
  if (clicks.length)
    did.push(`clicked ${count(clicks.length, 'time')} (${some(clicks.map((c) => quoted(c.label)))})`)
  if (inputs.length) did.push(`typed into ${count(new Set(inputs.map((i) => i.label)).size, 'field')}`)
  if (did.length) sentences.push(`They ${did.join(' and ')}.`)

  const wrong: string[] = []
  const errors = of(facts, 'error')
  const errorCount = figures.errors ?? errors.length
  if (errorCount > 0)
    wrong.push(
      `${count(errorCount, 'error')}${errors[0] ? ` (first: ${quoted(errors[0].label, MESSAGE_CHARS)})` : ''}`,
    )
  const failed = of(facts, 'request')
  if (failed.length)
    wrong.push(
      `${count(failed.length, 'failed request')} (${some(
        failed.map(
          (r) =>
            `${r.method ?? 'GET'} ${oneLine(shortUrl(r.label), PAGE_CHARS)} ${r.status === null ? 'without an answer' : `→ ${r.status}`}`,
        ),
      )})`,
    )
  const rage = of(facts, 'rage_click')
  if (rage.length)
    wrong.push(`${count(rage.length, 'rage click')} on ${some(rage.map((c) => quoted(c.label)))}`)
  const dead = of(facts, 'dead_click')
  if (dead.length)
    wrong.push(`${count(dead.length, 'dead click')} on ${some(dead.map((c) => quoted(c.label)))}`)
  sentences.push(
    wrong.length
      ? `What went wrong: ${wrong.join('; ')}.`
      : 'No error, failed request, rage or dead click was detected.',
  )
  return cutText(sentences.join(' '), SUMMARY_MAX_CHARS)
}
