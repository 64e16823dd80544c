import { el, page } from '@/lib/analysis/testing/events'
import type { RrwebEvent } from '@/lib/analysis/types'

/**
 * What an attacker with a public ingest key can put in one batch, in the shapes that made the
 * analyser's patterns backtrack (issue 14): a console error whose message is a megabyte of
 * letters with no `@`, an SDK error whose stack lines are 300 KB each, and a megabyte of CSS
 * with no closing brace, both as a stylesheet rule and inside a snapshot's `<style>`.
 * The sizes keep one batch under the 5 MiB wire limit.
 */
const HOSTILE_SIZES = { message: 1_000_000, stackLine: 300_000, css: 1_000_000 } as const

export function hostileEvents(start: number, href = 'https://shop.example/checkout'): RrwebEvent[] {
  const letters = 'a'.repeat(HOSTILE_SIZES.message)
  const stackLine = `    at ${'f'.repeat(HOSTILE_SIZES.stackLine)} (${'x'.repeat(20)}`
  const css = `.a${' .b'.repeat(HOSTILE_SIZES.css / 3)}{cursor:pointer`
  let at = start
  const event = (type: number, data: unknown): RrwebEvent => ({ type, timestamp: ++at, data })
  return [
    event(4, { href, width: 1280, height: 720 }),
    event(2, {
      node: page([], [el(5, 'style', { _cssText: css })]),
      initialOffset: { top: 0, left: 0 },
    }),
    event(3, { source: 8, id: 5, adds: [{ rule: css, index: 0 }] }),
    event(6, {
      plugin: 'rrweb/console@1',
      payload: {
        level: 'error',
        payload: [JSON.stringify(`Uncaught Error: ${letters}`)],
        trace: [stackLine],
      },
    }),
    event(5, {
      tag: 'error',
      payload: {
        type: 'TypeError',
        message: letters,
        stack: `TypeError: x\n${stackLine}\n${stackLine}`,
        handled: false,
        mechanism: 'onerror',
        timestamp: at,
      },
    }),
  ]
}
