/**
 * rage_click and dead_click (docs/design/analysis.md §4.3) with every guard, on event sequences shaped as
 * §1.4 and §1.6 describe: MouseDown → MouseUp → Click, a DblClick after the second fast click,
 * responses as Mutation / Input / Scroll / Selection / navigation events.
 */
import { describe, expect, it } from 'vitest'
import { analyzeEvents } from '@/lib/analysis'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'

const HREF = 'https://app.example.com/editor'
const DOC = page(
  [
    el(10, 'button', { id: 'save-draft', class: 'btn' }, [el(11, 'span', {}, [txt(12, 'Save')])]),
    el(13, 'div', { id: 'out' }),
    el(14, 'div', { class: 'card-cta' }, [txt(15, 'More details')]),
    el(16, 'p', {}, [txt(17, 'Some paragraph text to select')]),
    el(18, 'input', { type: 'text', id: 'title' }),
    el(19, 'input', { type: 'checkbox', id: 'agree' }),
    el(20, 'label', { for: 'agree' }, [txt(21, 'I agree')]),
    el(22, 'button', { class: 'stepper' }, [txt(23, '+')]),
    el(24, 'a', { href: '/docs', target: '_blank' }, [txt(25, 'Docs')]),
    el(26, 'a', { href: '/report.pdf', download: '' }, [txt(27, 'Report')]),
    el(28, 'input', { type: 'file', id: 'upload' }),
    el(29, 'button', { disabled: '' }, [txt(30, 'Disabled')]),
    el(31, 'select', { id: 'size' }, [el(32, 'option', {}, [txt(33, 'M')])]),
    el(34, 'div', { role: 'slider' }),
    el(35, 'textarea', { id: 'notes' }),
    el(36, 'div', { class: 'pointer' }, [txt(37, 'Styled card')]),
    el(38, 'button', { id: 'other' }, [txt(39, 'Other')]),
    el(40, 'a', { href: '/pricing' }, [txt(41, 'Pricing')]),
  ],
  [el(5, 'style', { _cssText: '.pointer{cursor:pointer}' })],
)
const RESPONSE = { attributes: [{ id: 13, attributes: { class: 'busy' } }] }

function session(): SessionBuilder {
  return new SessionBuilder().load(HREF, DOC).wait(1000)
}

/** Fast clicks as a real mouse makes them: a DblClick follows the second click (§1.4). */
function burst(b: SessionBuilder, id: number, count: number, gap = 150, respond = false): SessionBuilder {
  for (let i = 0; i < count; i++) {
    b.click(id, 100 + (i % 2) * 3, 100 + (i % 2) * 2)
    if (respond) b.mutation(RESPONSE)
    if (i === 1) b.dblclick(id)
    b.wait(gap)
  }
  return b
}

function settle(b: SessionBuilder): SessionBuilder {
  return b.wait(31_000).mouseMove()
}

async function kinds(b: SessionBuilder) {
  const { findings } = await analyzeEvents(b.events)
  return findings.map((f) => `${f.kind} ${f.trigger?.element.selector ?? ''}`)
}

describe('rage_click', () => {
  it('reports ≥ 4 fast clicks on the same element that got no response', async () => {
    const { findings, summary, digest } = await analyzeEvents(settle(burst(session(), 12, 6)).events)
    expect(findings).toHaveLength(1)
    expect(findings[0]).toMatchObject({
      kind: 'rage_click',
      title: 'Rage clicks on “Save” (#save-draft) on /editor',
      priority: 'high',
      evidence: { clicks: 6, respondedClicks: 0 },
    })
    expect(findings[0]!.trigger?.element.tag).toBe('button')
    expect(summary).toMatchObject({ rageClickCount: 1, deadClickCount: 0 })
    expect(digest.rageClicks).toHaveLength(1)
    // The dead click of the burst's first click is superseded (§4.3 session-level merge).
    expect(digest.deadClicks).toEqual([])
  })

  it('needs 4 clicks', async () => {
    expect(await kinds(burst(session(), 12, 3).mouseMove())).toEqual([])
  })

  it('needs each click within 1000 ms of the previous one', async () => {
    // Slow repeated clicks on a button that never answers are dead clicks, not rage.
    expect(await kinds(burst(session(), 12, 6, 1100).mouseMove())).toEqual([
      'dead_click button#save-draft.btn',
    ])
  })

  it('needs each click within 30 px of the previous one', async () => {
    const b = session()
    for (let i = 0; i < 6; i++) b.click(12, 100 + i * 40, 100).wait(150)
    expect(await kinds(b.mouseMove())).toEqual([])
  })

  it('needs the same resolved element', async () => {
    const b = session()
    for (let i = 0; i < 6; i++) b.click(i % 2 ? 12 : 39, 100, 100).wait(150)
    expect(await kinds(b.mouseMove())).toEqual([])
  })

  it('is not reported when the page responds to the clicks (a stepper)', async () => {
    expect(await kinds(settle(burst(session(), 12, 6, 150, true)))).toEqual([])
  })

  it('is reported when responses followed fewer than half of the clicks', async () => {
    const b = session().click(12).mutation(RESPONSE).wait(150)
    burst(b, 12, 5).mutation(RESPONSE)
    expect(await kinds(settle(b))).toEqual(['rage_click button#save-draft.btn'])
  })

  it('is not reported when text gets selected during the burst', async () => {
    const b = session()
    burst(b, 17, 2)
    b.selection(17, 0, 17, 9)
    burst(b, 17, 3)
    expect(await kinds(b.mouseMove())).toEqual([])
  })

  it('treats a DblClick as text selection on non-controls, not on buttons', async () => {
    expect(await kinds(burst(session(), 17, 5).mouseMove())).toEqual([])
    expect(await kinds(burst(session(), 12, 5).mouseMove())).toEqual(['rage_click button#save-draft.btn'])
  })

  it('reports rage on a plain element at medium priority', async () => {
    const b = session()
    for (let i = 0; i < 5; i++) b.click(17).wait(150)
    const { findings } = await analyzeEvents(settle(b).events)
    expect(findings.map((f) => [f.kind, f.priority])).toEqual([['rage_click', 'medium']])
  })

  it.each([
    ['a text input', 18],
    ['a textarea', 35],
    ['a checkbox', 19],
    ['a label', 21],
    ['a select', 33],
    ['a slider', 34],
    ['a stepper button', 23],
  ])('is not reported on %s', async (_, id) => {
    const b = session()
    for (let i = 0; i < 6; i++) b.click(id).wait(150)
    expect(await kinds(b.mouseMove())).toEqual([])
  })
})

describe('dead_click', () => {
  it('reports a click on a button with no response within 7 s', async () => {
    const { findings, summary } = await analyzeEvents(settle(session().click(12)).events)
    expect(findings).toHaveLength(1)
    expect(findings[0]).toMatchObject({
      kind: 'dead_click',
      title: 'Unresponsive “Save” (#save-draft) on /editor',
      priority: 'medium',
      evidence: { waitedMs: 7000, interactive: 'explicit' },
    })
    expect(summary.deadClickCount).toBe(1)
  })

  it.each([
    ['a mutation', (b: SessionBuilder) => b.wait(2000).mutation(RESPONSE)],
    ['a late mutation (slow, not dead)', (b: SessionBuilder) => b.wait(6500).mutation(RESPONSE)],
    ['an input event', (b: SessionBuilder) => b.wait(500).input(18, '*')],
    ['a text selection', (b: SessionBuilder) => b.wait(500).selection(17, 0, 17, 4)],
    ['a scroll within 300 ms', (b: SessionBuilder) => b.wait(100).scroll(400)],
    ['an SPA navigation', (b: SessionBuilder) => b.wait(500).navigate('https://app.example.com/drafts')],
    ['a page load', (b: SessionBuilder) => b.wait(500).load('https://app.example.com/drafts', DOC)],
    [
      'a style rule change',
      (b: SessionBuilder) => b.emit(3, { source: 8, id: 5, adds: [{ rule: '.x{}', index: 0 }] }),
    ],
  ])('is not reported after %s', async (_, respond) => {
    expect(await kinds(settle(respond(session().click(12))))).toEqual([])
  })

  it('counts a response between MouseDown and Click (handlers on mousedown)', async () => {
    const b = session()
      .emit(3, { source: 2, type: 1, id: 12, x: 100, y: 100 })
      .mutation(RESPONSE)
      .emit(3, { source: 2, type: 0, id: 12, x: 100, y: 100 })
      .emit(3, { source: 2, type: 2, id: 12, x: 100, y: 100 })
    expect(await kinds(settle(b))).toEqual([])
  })

  it('is reported after a scroll later than 300 ms, or a collapsed selection', async () => {
    expect(await kinds(settle(session().click(12).wait(500).scroll(400)))).toHaveLength(1)
    expect(await kinds(settle(session().click(12).wait(50).selection(17, 3, 17, 3)))).toHaveLength(1)
  })

  it('reports elements that only look clickable at low priority', async () => {
    const b = session().click(15).wait(10_000).mouseMove().click(37).wait(31_000).mouseMove()
    const { findings } = await analyzeEvents(b.events)
    expect(findings.map((f) => [f.title, f.priority])).toEqual([
      ['Unresponsive “More details” (div.card-cta) on /editor', 'low'],
      ['Unresponsive “Styled card” (div.pointer) on /editor', 'low'],
    ])
  })

  it.each([
    ['plain text', 17],
    ['a link opening a new window', 25],
    ['a download link', 27],
    ['a file input', 28],
    ['a disabled button', 30],
    ['a text input', 18],
  ])('is not reported on %s', async (_, id) => {
    expect(await kinds(settle(session().click(id)))).toEqual([])
  })

  it('is replaced by a js_error that follows within 1 s', async () => {
    const b = settle(session().click(12).wait(20).uncaught('TypeError: x is undefined'))
    expect(await kinds(b)).toEqual(['js_error button#save-draft.btn'])
  })

  it('is undecidable when the session ends < 3 s after the click', async () => {
    expect(await kinds(session().click(12).wait(2500).mouseMove())).toEqual([])
  })

  it('is dead after ≥ 3 s of silence before the session ends, for explicit controls only', async () => {
    expect(await kinds(session().click(12).wait(4000).mouseMove())).toEqual([
      'dead_click button#save-draft.btn',
    ])
    expect(await kinds(session().click(15).wait(4000).mouseMove())).toEqual([])
  })

  it('folds repeated clicks on one element within 1 s into one attempt', async () => {
    const b = settle(session().click(12).wait(300).click(12))
    const { findings } = await analyzeEvents(b.events)
    expect(findings.map((f) => [f.kind, f.occurrences])).toEqual([['dead_click', 1]])
  })

  it('counts separate attempts as occurrences; three make it blocking (retried)', async () => {
    const b = session().click(41).wait(8000).click(41).wait(8000).click(41).wait(31_000).mouseMove()
    const { findings } = await analyzeEvents(b.events)
    expect(findings.map((f) => [f.kind, f.occurrences, f.priority])).toEqual([['dead_click', 3, 'high']])
  })

  it('is superseded by a rage click on the same element within a minute, before or after', async () => {
    const before = session().click(12).wait(8000).mouseMove()
    burst(before, 12, 5)
    const after = burst(session(), 12, 5).wait(20_000).mouseMove().click(12)
    const elsewhere = burst(session(), 12, 5).wait(70_000).mouseMove().click(12)
    expect(await kinds(settle(before))).toEqual(['rage_click button#save-draft.btn'])
    expect(await kinds(settle(after))).toEqual(['rage_click button#save-draft.btn'])
    expect(await kinds(settle(elsewhere))).toEqual([
      'rage_click button#save-draft.btn',
      'dead_click button#save-draft.btn',
    ])
  })

  it('uses the element that existed when it was clicked, across checkouts', async () => {
    const b = session()
      .mutation({
        adds: [
          {
            parentId: 4,
            nextId: null,
            node: { type: 2, tagName: 'button', attributes: { id: 'export-csv' }, childNodes: [], id: 50 },
          },
          { parentId: 50, nextId: null, node: { type: 3, textContent: 'Export CSV', id: 51 } },
        ],
      })
      .wait(500)
      .click(51)
      .wait(100)
      .checkout(HREF, DOC)
      .wait(31_000)
      .mouseMove()
    const { findings } = await analyzeEvents(b.events)
    expect(findings.map((f) => f.title)).toEqual(['Unresponsive “Export CSV” (#export-csv) on /editor'])
  })
})
