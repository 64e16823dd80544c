/** Priority (docs/design/analysis.md §4.5), titles and steps to replicate (§4.6). */
import { describe, expect, it } from 'vitest'
import { analyzeEvents } from '@/lib/analysis'
import { computePriority, networkBase, shift } from '@/lib/analysis/priority'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'
import { consoleErrorTitle, deadTitle, jsErrorTitle, networkTitle, rageTitle } from '@/lib/analysis/text'
import { formatOffset, Timeline } from '@/lib/analysis/timeline'
import type { ElementDescriptor } from '@/lib/analysis/types'

describe('computePriority (§4.5)', () => {
  it('clamps to the scale', () => {
    expect(shift('critical', 1)).toBe('critical')
    expect(shift('low', -1)).toBe('low')
  })

  it('applies critical path +1, blocking +1, third party −1, in order with clamping', () => {
    const input = { base: 'high' as const, paths: ['/products'], thirdParty: false }
    expect(computePriority(input, false)).toBe('high')
    expect(computePriority({ ...input, paths: ['/products', '/api/cart'] }, false)).toBe('critical')
    expect(computePriority(input, true)).toBe('critical')
    // Clamped at critical before the −1, so the third party lands on high.
    expect(computePriority({ ...input, paths: ['/checkout'], thirdParty: true }, true)).toBe('high')
    expect(computePriority({ base: 'medium', paths: ['/'], thirdParty: true }, false)).toBe('low')
    expect(computePriority({ base: 'low', paths: ['/'], thirdParty: true }, false)).toBe('low')
  })

  it('keeps fixed priorities (Script error.)', () => {
    expect(computePriority({ base: 'low', paths: ['/checkout'], thirdParty: false, fixed: true }, true)).toBe(
      'low',
    )
  })

  it('bases network failures on who started them', () => {
    expect(networkBase(500, 'POST', false)).toBe('high')
    expect(networkBase(0, 'GET', true)).toBe('high')
    expect(networkBase(503, 'GET', false)).toBe('medium')
    expect(networkBase(429, 'POST', true)).toBe('low')
  })

  it('makes a checkout 500 or an add-to-cart error critical', async () => {
    const doc = page([el(10, 'button', { id: 'buy' }, [txt(11, 'Add to cart')])])
    const b = new SessionBuilder()
      .load('https://shop.example.com/checkout', doc)
      .request({ url: 'https://shop.example.com/api/checkout', method: 'POST', status: 500 })
      .load('https://shop.example.com/products/1', doc)
      .click(10)
      .mutation({ attributes: [{ id: 10, attributes: { 'aria-busy': 'true' } }] })
      .request({ url: 'https://shop.example.com/api/cart', method: 'POST', status: 502, duration: 1 })
      .wait(31_000)
      .mouseMove()
    const { findings } = await analyzeEvents(b.events)
    expect(findings.map((f) => [f.title, f.priority])).toEqual([
      ['POST /api/checkout returns 500 on /checkout', 'critical'],
      ['POST /api/cart returns 502 on /products/:id', 'critical'],
    ])
  })
})

const BUTTON: ElementDescriptor = {
  tag: 'button',
  id: 'save-draft',
  classes: ['btn'],
  role: null,
  ariaLabel: null,
  testId: null,
  name: null,
  type: null,
  href: null,
  text: 'Save',
  selector: 'button#save-draft.btn',
}

describe('titles (§4.6)', () => {
  it('read like the design examples', () => {
    expect(
      jsErrorTitle('TypeError', "Cannot read properties of null (reading 'price')", '/products/:id', {
        ...BUTTON,
        text: 'Buy now',
      }),
    ).toBe(
      "TypeError: Cannot read properties of null (reading 'price') after clicking “Buy now” on /products/:id",
    )
    expect(networkTitle('PUT', '/api/profile', 503, '/settings')).toBe(
      'PUT /api/profile returns 503 on /settings',
    )
    expect(networkTitle('POST', '/api/sync', 0, '/settings')).toBe(
      'POST /api/sync fails with no response on /settings',
    )
    expect(rageTitle(BUTTON, '#save-draft', '/editor')).toBe('Rage clicks on “Save” (#save-draft) on /editor')
    expect(
      deadTitle({ ...BUTTON, tag: 'div', id: null, text: 'More details' }, 'div.card-cta', '/pricing'),
    ).toBe('Unresponsive “More details” (div.card-cta) on /pricing')
    expect(deadTitle({ ...BUTTON, text: '' }, 'button.icon', '/x')).toBe('Unresponsive button.icon on /x')
    expect(consoleErrorTitle('Payment widget failed', '/account')).toBe(
      'Console error: Payment widget failed on /account',
    )
  })

  it('cap long messages', () => {
    expect(jsErrorTitle('Error', 'x'.repeat(500), '/', null).length).toBeLessThan(160)
  })
})

describe('steps to replicate (§4.6)', () => {
  it('formats offsets from the session start', () => {
    expect(formatOffset(12_345)).toBe('12.3 s')
    expect(formatOffset(125_000)).toBe('2 min 05 s')
  })

  it('lists page loads, clicks and typing — never the value — then the failure', async () => {
    const doc = page([
      el(10, 'label', { for: 'email' }, [txt(11, 'Email')]),
      el(12, 'input', { id: 'email', type: 'email' }),
      el(13, 'button', { id: 'buy', class: 'btn' }, [txt(14, 'Buy now')]),
      el(15, 'input', { id: 'agree', type: 'checkbox', 'aria-label': 'Accept terms' }),
      el(16, 'select', { name: 'size' }),
    ])
    const b = new SessionBuilder()
      .load('https://shop.example.com/checkout?coupon=SUMMER&session=eyJhbGciOiJIUzI1NiJ9xyz', doc)
      .wait(1000)
      .click(12)
      .type(12, 'bob@example.com', false)
      .click(15)
      .input(15, 'on', true)
      .input(16, 'XL')
      .wait(500)
      .click(14)
      .uncaught("TypeError: Cannot read properties of null (reading 'price')")
    const { findings } = await analyzeEvents(b.events)
    const steps = findings[0]!.stepsToReplicate
    expect(steps).toBe(
      [
        '1. Opened https://shop.example.com/checkout?coupon=SUMMER&session=…',
        '2. Clicked “Email” (#email)',
        '3. Typed 15 characters into Email',
        '4. Clicked “Accept terms” (#agree)',
        '5. Checked Accept terms',
        '6. Chose an option in size',
        '7. Clicked “Buy now” (#buy)',
        `8. TypeError: Cannot read properties of null (reading 'price') is thrown (${formatOffset(b.now - b.start)} after the session started)`,
      ].join('\n'),
    )
    expect(steps).not.toContain('bob')
  })

  it('keeps the last 30 actions and says where the user was', () => {
    const timeline = new Timeline()
    timeline.page(1, 1000, 'https://x.test/a', 'load')
    for (let i = 0; i < 40; i++)
      timeline.click(2 + i, 2000 + i * 2000, 'https://x.test/a', `k${i}`, `B${i}`, `#b${i}`)
    const steps = timeline.steps(100, 'Boom', 100_000, 0, 'https://x.test/a').split('\n')
    expect(steps).toHaveLength(32)
    expect(steps[0]).toBe('1. Be on https://x.test/a')
    expect(steps[1]).toBe('2. Clicked “B10” (#b10)')
    expect(steps[31]).toBe('32. Boom (1 min 40 s after the session started)')
  })

  it('collapses repeated clicks and keystrokes', () => {
    const timeline = new Timeline()
    timeline.click(1, 0, 'u', 'k', 'Save', '#save')
    timeline.click(2, 300, 'u', 'k', 'Save', '#save')
    timeline.input(3, 400, 'u', 'f', 'Name', { control: 'text', length: 1, checked: null })
    timeline.input(4, 450, 'u', 'f', 'Name', { control: 'text', length: 2, checked: null })
    timeline.input(5, 500, 'u', 'f', 'Name', { control: 'text', length: 0, checked: null })
    expect(timeline.steps(10, 'X', 600, 0, 'u')).toBe(
      '1. Be on u\n2. Clicked “Save” (#save) 2 times\n3. Cleared Name\n4. X (0.6 s after the session started)',
    )
  })
})
