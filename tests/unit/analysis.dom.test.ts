/**
 * The document model, element descriptors, selectors and click-target resolution
 * (docs/design/analysis.md §1.5). Trees follow rrweb's serialized format: FullSnapshot trees carry all
 * children, Mutation adds carry one node each with empty childNodes.
 */
import { describe, expect, it } from 'vitest'
import { DocumentModel } from '@/lib/analysis/dom/document'
import {
  describeElement,
  isGeneratedClass,
  isGeneratedId,
  sentrySelector,
  stableSelector,
} from '@/lib/analysis/dom/element'
import { fieldLabel } from '@/lib/analysis/dom/field'
import { deadExclusion, looksInteractive, rageExclusion, resolveClickTarget } from '@/lib/analysis/dom/target'
import { visibleText } from '@/lib/analysis/dom/text'
import { el, page, txt } from '@/lib/analysis/testing/events'

function model(body: Parameters<typeof page>[0], head: Parameters<typeof page>[1] = []): DocumentModel {
  const doc = new DocumentModel()
  doc.loadSnapshot(page(body, head))
  return doc
}

function textOf(doc: DocumentModel, id: number): string {
  return visibleText(doc, doc.get(id)!)
}

describe('DocumentModel (§1.5)', () => {
  it('indexes every node of a FullSnapshot', () => {
    const doc = model([el(10, 'button', { id: 'buy' }, [txt(11, 'Buy now')])])
    expect(doc.get(10)).toMatchObject({ tag: 'button', attrs: { id: 'buy' }, parentId: 4 })
    expect(doc.get(4)?.children).toEqual([10])
    expect(textOf(doc, 10)).toBe('Buy now')
  })

  it('is rebuilt at every FullSnapshot: ids restart per document', () => {
    const doc = model([el(10, 'button', {}, [txt(11, 'Old')])])
    const generation = doc.generation
    doc.loadSnapshot(page([el(10, 'a', { href: '/x' }, [txt(11, 'New')])]))
    expect(doc.get(10)?.tag).toBe('a')
    expect(textOf(doc, 10)).toBe('New')
    expect(doc.generation).toBe(generation + 1)
  })

  it('applies adds in order, each node on its own with parentId and nextId', () => {
    const doc = model([el(10, 'ul', {}, [el(11, 'li', {}, [txt(12, 'b')])])])
    doc.applyMutation({
      adds: [
        {
          parentId: 10,
          nextId: 11,
          node: { type: 2, tagName: 'li', attributes: {}, childNodes: [], id: 20 },
        },
        { parentId: 20, nextId: null, node: { type: 3, textContent: 'a', id: 21 } },
        {
          parentId: 10,
          nextId: null,
          node: { type: 2, tagName: 'li', attributes: {}, childNodes: [], id: 22 },
        },
        { parentId: 22, nextId: null, node: { type: 3, textContent: 'c', id: 23 } },
      ],
      removes: [],
      texts: [],
      attributes: [],
    })
    expect(doc.get(10)?.children).toEqual([20, 11, 22])
    expect(textOf(doc, 10)).toBe('a b c')
  })

  it('removes whole subtrees, texts replace content, attributes set and unset', () => {
    const doc = model([
      el(10, 'div', { class: 'a', hidden: '' }, [el(11, 'span', {}, [txt(12, 'x')])]),
      el(13, 'p', {}, [txt(14, 'old')]),
    ])
    doc.applyMutation({
      removes: [{ parentId: 10, id: 11 }],
      texts: [{ id: 14, value: 'new' }],
      attributes: [{ id: 10, attributes: { class: 'b', hidden: null, 'data-x': '1' } }],
      adds: [],
    })
    expect(doc.get(11)).toBeUndefined()
    expect(doc.get(12)).toBeUndefined()
    expect(doc.get(10)?.children).toEqual([])
    expect(textOf(doc, 13)).toBe('new')
    expect(doc.get(10)?.attrs).toEqual({ class: 'b', 'data-x': '1' })
  })

  it('applies style attribute diffs that rrweb sends as objects', () => {
    const doc = model([el(10, 'div', { style: 'color: red;' })])
    doc.applyMutation({ attributes: [{ id: 10, attributes: { style: { cursor: 'pointer' } } }] })
    expect(doc.get(10)?.attrs.style).toMatch(/cursor: pointer/)
    expect(looksInteractive(doc, doc.get(10)!)).toBe(true)
    doc.applyMutation({ attributes: [{ id: 10, attributes: { style: { cursor: false } } }] })
    expect(doc.get(10)?.attrs.style).not.toMatch(/cursor/)
  })

  it('treats a re-added id as a move', () => {
    const doc = model([el(10, 'div', {}, [el(11, 'span')]), el(12, 'div')])
    doc.applyMutation({
      removes: [{ parentId: 10, id: 11 }],
      adds: [
        {
          parentId: 12,
          nextId: null,
          node: { type: 2, tagName: 'span', attributes: {}, childNodes: [], id: 11 },
        },
      ],
    })
    expect(doc.get(10)?.children).toEqual([])
    expect(doc.get(12)?.children).toEqual([11])
  })

  it('skips hidden subtrees, scripts and styles in visible text, capped at 100 characters', () => {
    const doc = model([
      el(10, 'div', {}, [
        el(11, 'span', { 'aria-hidden': 'true' }, [txt(12, 'icon')]),
        el(13, 'script', {}, [txt(14, 'var x')]),
        txt(15, '  Save\n  draft '),
        el(16, 'p', {}, [txt(17, 'y'.repeat(150))]),
      ]),
    ])
    const text = textOf(doc, 10)
    expect(text.startsWith('Save draft y')).toBe(true)
    expect(text).toHaveLength(100)
  })
})

describe('element descriptors and selectors', () => {
  const doc = model([
    el(
      10,
      'button',
      {
        id: 'save-draft',
        class: 'btn btn-primary',
        role: 'button',
        'aria-label': 'Save',
        'data-testid': 'save',
      },
      [txt(11, 'Save')],
    ),
    el(12, 'input', { type: 'submit', value: 'Send order' }),
    el(13, 'input', { type: 'email', value: 'bob@example.com', name: 'email' }),
    el(14, 'div', { id: ':r1:', class: 'card-cta css-1x2y3z active' }, [txt(15, 'More details')]),
  ])

  it('describes tag, id, classes, role, aria-label, test id, type and text', () => {
    expect(describeElement(doc, doc.get(10)!)).toEqual({
      tag: 'button',
      id: 'save-draft',
      classes: ['btn', 'btn-primary'],
      role: 'button',
      ariaLabel: 'Save',
      testId: 'save',
      name: null,
      type: null,
      href: null,
      text: 'Save',
      selector: 'button#save-draft.btn.btn-primary[role="button"][aria-label="Save"][data-testid="save"]',
    })
  })

  it('shows the value of button inputs only, never of other inputs', () => {
    expect(describeElement(doc, doc.get(12)!).text).toBe('Send order')
    expect(describeElement(doc, doc.get(13)!).text).toBe('')
  })

  it('builds a Sentry-style selector', () => {
    expect(sentrySelector(doc.get(14)!)).toBe('div#:r1:.card-cta.css-1x2y3z.active')
  })

  it('uses #id for hand-written ids, else tag + attributes + stable classes (§4.4)', () => {
    expect(stableSelector(describeElement(doc, doc.get(10)!))).toBe('#save-draft')
    expect(stableSelector(describeElement(doc, doc.get(14)!))).toBe('div.card-cta')
    expect(stableSelector(describeElement(doc, doc.get(13)!))).toBe('input[name="email"]')
  })

  it.each([
    ['save-draft', false],
    ['checkout', false],
    [':r1:', true],
    ['ember123', true],
    ['item-42', true],
    ['0b6c1f4e-6f0e-4d6a-9a59-5e0b1b8d2c11', true],
    ['a1b2c3d4e5', true],
    ['h1', false],
  ])('isGeneratedId(%s) = %s', (id, generated) => {
    expect(isGeneratedId(id)).toBe(generated)
  })

  it.each([
    ['btn', false],
    ['card-cta', false],
    ['css-1x2y3z', true],
    ['sc-bdVaJa', true],
    ['kVtMtA', true],
    ['Button_primary__3xKq1', true],
    ['hover:bg-blue-500', true],
    ['active', true],
  ])('isGeneratedClass(%s) = %s', (name, generated) => {
    expect(isGeneratedClass(name)).toBe(generated)
  })
})

describe('click target resolution (§1.5: the deepest node is the target)', () => {
  const css = '.card-cta:hover, .tile .more { cursor: pointer } .plain { color: red }'
  const doc = model(
    [
      el(10, 'button', { id: 'buy', class: 'btn' }, [
        el(11, 'span', { class: 'btn-label' }, [el(12, 'svg'), txt(13, 'Buy now')]),
      ]),
      el(20, 'div', { class: 'card-cta' }, [el(21, 'span', {}, [txt(22, 'More details')])]),
      el(30, 'div', { class: 'tile' }, [el(31, 'span', { class: 'more' }, [txt(32, 'More')])]),
      el(40, 'div', { style: 'cursor:pointer' }, [txt(41, 'Styled')]),
      el(50, 'p', { class: 'plain' }, [txt(51, 'Just text')]),
      el(60, 'a', { href: '/x', target: '_blank' }, [txt(61, 'Docs')]),
      el(62, 'a', { href: '/f.pdf', download: '' }, [txt(63, 'PDF')]),
      el(64, 'a', { href: 'mailto:a@b.c' }, [txt(65, 'Mail')]),
      el(66, 'input', { type: 'file' }),
      el(67, 'button', { disabled: '' }, [txt(68, 'Off')]),
      el(69, 'button', { 'aria-disabled': 'true' }, [txt(70, 'Off')]),
      el(71, 'label', { for: 'agree' }, [txt(72, 'I agree')]),
      el(73, 'input', { id: 'agree', type: 'checkbox' }),
      el(74, 'div', { role: 'slider' }),
      el(75, 'button', {}, [txt(76, '+')]),
      el(77, 'button', { 'aria-label': 'Next page' }, [txt(78, '›')]),
      el(79, 'div', { contenteditable: 'true' }, [txt(80, 'Edit me')]),
      el(81, 'select', {}, [el(82, 'option', {}, [txt(83, 'A')])]),
      el(84, 'div', { onclick: 'go()' }, [txt(85, 'Go')]),
      el(86, 'summary', {}, [txt(87, 'Details')]),
      el(88, 'div', { role: 'tab' }, [txt(89, 'Tab')]),
    ],
    [el(5, 'style', { _cssText: css })],
  )

  it('walks up from an icon inside a button to the button', () => {
    const target = resolveClickTarget(doc, 12)!
    expect(target.node.id).toBe(10)
    expect(target.interactivity).toBe('explicit')
    expect(target.element.text).toBe('Buy now')
  })

  it('walks up from a text node to its element', () => {
    expect(resolveClickTarget(doc, 13)?.node.id).toBe(10)
  })

  it('finds elements that only look clickable: class token, CSS cursor rule, inline style', () => {
    expect(resolveClickTarget(doc, 21)).toMatchObject({ node: { id: 20 }, interactivity: 'looks' })
    expect(resolveClickTarget(doc, 32)).toMatchObject({ node: { id: 31 }, interactivity: 'looks' })
    expect(resolveClickTarget(doc, 41)).toMatchObject({ node: { id: 40 }, interactivity: 'looks' })
    expect(resolveClickTarget(doc, 51)).toMatchObject({ node: { id: 50 }, interactivity: null })
  })

  it('knows explicit controls: onclick, summary, role=tab', () => {
    for (const id of [85, 87, 89]) expect(resolveClickTarget(doc, id)?.interactivity).toBe('explicit')
  })

  it('returns null for unknown ids and page roots', () => {
    expect(resolveClickTarget(doc, 999)).toBeNull()
    expect(resolveClickTarget(doc, 4)?.interactivity).toBeNull()
  })

  it.each([
    [60, 'new-window'],
    [62, 'download'],
    [64, 'external-app'],
    [66, 'file-input'],
    [67, 'disabled'],
    [69, 'disabled'],
    [10, null],
  ])('dead-click exclusion of node %i: %s (§4.3)', (id, reason) => {
    expect(deadExclusion(doc.get(id)!)).toBe(reason)
  })

  it.each([
    [72, 'label'],
    [73, 'input'],
    [74, 'widget'],
    [76, 'stepper'],
    [78, 'stepper'],
    [80, 'text-input'],
    [83, 'select'],
    [89, 'widget'],
    [13, null],
  ])('rage-click exclusion of a click on node %i: %s (§4.3)', (id, reason) => {
    const target = resolveClickTarget(doc, id)!
    expect(rageExclusion(target.node, target.element)).toBe(reason)
  })
})

describe('field labels (§4.6: "typed 14 characters into Email")', () => {
  const doc = model([
    el(10, 'label', { for: 'email' }, [txt(11, 'Email')]),
    el(12, 'input', { id: 'email', type: 'email', value: 'secret@example.com' }),
    el(13, 'label', {}, [txt(14, 'Name '), el(15, 'input', { name: 'n' })]),
    el(16, 'input', { 'aria-label': 'Search products' }),
    el(17, 'span', { id: 'zip-label' }, [txt(18, 'Postcode')]),
    el(19, 'input', { 'aria-labelledby': 'zip-label' }),
    el(20, 'input', { placeholder: 'Coupon' }),
    el(21, 'textarea', { name: 'notes' }),
  ])

  it.each([
    [12, 'Email'],
    [15, 'Name'],
    [16, 'Search products'],
    [19, 'Postcode'],
    [20, 'Coupon'],
    [21, 'notes'],
  ])('field %i is called %s', (id, label) => {
    expect(fieldLabel(doc, doc.get(id)!)).toBe(label)
  })
})
