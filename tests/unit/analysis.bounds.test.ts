/**
 * Strings of any length from a replay (issue 14): the analyser reads each up to its bound
 * (lib/analysis/bounds.ts) and matches in linear time, so megabyte fields give ordinary
 * findings. No timing is asserted: before the fix these inputs ran for minutes, past the
 * test timeout.
 */
import { describe, expect, it } from 'vitest'
import { analyzeEvents } from '@/lib/analysis'
import {
  MAX_ATTRIBUTE_CHARS,
  MAX_MESSAGE_CHARS,
  MAX_STACK_LINE_CHARS,
  MAX_STACK_LINES,
  MAX_STYLESHEET_CHARS,
  MAX_URL_CHARS,
} from '@/lib/analysis/bounds'
import { DocumentModel } from '@/lib/analysis/dom/document'
import { parseFrames, stackLines } from '@/lib/analysis/stack'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'

const MB = 1024 * 1024
const HREF = 'https://shop.example/cart'
const FRAME = 'at renderCart (https://shop.example/assets/app.js:88:14)'

/** About `length` characters of `unit` repeated. */
function run(unit: string, length = MB): string {
  return unit.repeat(Math.ceil(length / unit.length))
}

function session(body = page([el(10, 'button', { id: 'buy' }, [txt(11, 'Buy')])])): SessionBuilder {
  return new SessionBuilder().load(HREF, body).wait(1000)
}

async function analyse(b: SessionBuilder) {
  return analyzeEvents(b.wait(31_000).mouseMove().events)
}

function evidence(finding: { evidence: Record<string, unknown> } | undefined): Record<string, unknown> {
  expect(finding).toBeDefined()
  return finding?.evidence ?? {}
}

describe('messages and stacks of any length', () => {
  it('reports a console error whose message is a megabyte of letters, cut to the bound', async () => {
    const { findings, digest } = await analyse(session().console('error', [run('a')]))
    expect(findings.map((f) => f.kind)).toEqual(['console_error'])
    const message = String(evidence(findings[0]).message)
    expect(message.length).toBe(MAX_MESSAGE_CHARS)
    expect(message.startsWith('aaaa')).toBe(true)
    expect(message.endsWith('…')).toBe(true)
    expect(findings[0]!.title.length).toBeLessThan(300)
    expect(digest.errors[0]!.message.length).toBeLessThanOrEqual(300)
  })

  it.each([
    ['letters', run('a')],
    ['`a.` pairs', run('a.')],
    ['`@` signs', run('@')],
    ['spaces between words', `x${run(' ')}y`],
    ['an address-like run', `${run('a.b-')}@${run('c.')}`],
    ['`:1:1` runs', run(':1')],
  ])('groups uncaught errors whose message is a megabyte of %s', async (_shape, body) => {
    const b = session().uncaught(`TypeError: ${body}`, [FRAME]).wait(3000)
    b.sdkError('RangeError', body, `RangeError: ${body}\n    ${FRAME}`).wait(3000)
    const { findings } = await analyse(b)
    expect(findings.map((f) => f.kind)).toEqual(['js_error', 'js_error'])
    for (const finding of findings) {
      expect(String(evidence(finding).message).length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS)
      expect(finding.description).toContain('renderCart')
      expect(finding.fingerprint).toMatch(/^[0-9a-f]{64}$/)
    }
  })

  it('reads 300 KB stack lines and 10,000-line stacks up to their bounds', async () => {
    const longLines = [
      `at ${run('a (', 300_000)}`,
      `${run('\t', 300_000)}@`,
      `${run('x@', 300_000)}:1`,
      `at ${run(' (', 300_000)}x`,
      run(':1', 300_000),
      FRAME,
    ]
    const many = Array.from({ length: 10_000 }, (_, i) => `at f${i} (https://shop.example/app.js:${i}:1)`)
    const b = session()
      .uncaught('TypeError: long lines', longLines)
      .wait(3000)
      .uncaught('TypeError: many lines', many)
      .wait(3000)
      .sdkError('Error', 'a stack string', `Error: x\n${many.join('\n')}`)
      .wait(3000)
      .sdkError('Error', 'one huge stack line', `Error: x\n    at ${run('a (', MB)}`)
    const { findings } = await analyse(b)
    expect(findings).toHaveLength(4)
    for (const finding of findings) {
      const stack = evidence(finding).stack as string[]
      expect(stack.length).toBeLessThanOrEqual(20)
      for (const line of stack) expect(line.length).toBeLessThanOrEqual(MAX_STACK_LINE_CHARS)
    }
    expect(findings[0]!.description).toContain('renderCart')
    expect(findings[1]!.description).toContain('f0')

    const lines = stackLines(many.join('\n'))
    expect(lines).toHaveLength(MAX_STACK_LINES)
    expect(parseFrames(many)).toHaveLength(50)
    expect(stackLines([run('a', MB)])[0]).toHaveLength(MAX_STACK_LINE_CHARS)
  })
})

describe('documents of any size', () => {
  const pointerCss = (filler: string) => `${filler}\n.promo{cursor:pointer}\n${filler}`

  it.each([
    ['ordinary rules', run('.a{color:red}', MB / 2)],
    ['a run of `{`', run('{', MB / 2)],
    ['a run with no brace', run('.a ', MB / 2)],
    ['pseudo-classes never closed', run(':a(', MB / 2)],
  ])('reads pointer rules in a megabyte stylesheet of %s', async (_shape, filler) => {
    const css = pointerCss(filler)
    const body = page(
      [el(20, 'div', { class: 'promo' }, [txt(21, 'Summer sale')])],
      [el(5, 'style', { _cssText: css })],
    )
    const { findings } = await analyse(session(body).click(21))
    expect(findings.map((f) => f.title)).toEqual(['Unresponsive “Summer sale” (div.promo) on /cart'])

    // The same stylesheet arriving as a StyleSheetRule insert, and as a <style> text node.
    const doc = new DocumentModel()
    doc.loadSnapshot(page([], [el(5, 'style', {}, [{ ...txt(6, css), isStyle: true } as never])]))
    expect(doc.pointer.matches(['promo'], null)).toBe(true)
    const later = session(page([el(20, 'div', { class: 'promo' }, [txt(21, 'Summer sale')])]))
      .emit(3, { source: 8, id: 5, adds: [{ rule: css, index: 0 }] })
      .wait(1000)
      .click(21)
    expect((await analyse(later)).findings).toHaveLength(1)
  })

  it('stops reading a stylesheet at its bound', () => {
    const doc = new DocumentModel()
    const css = `${run(' ', MAX_STYLESHEET_CHARS)}.late{cursor:pointer}`
    doc.loadSnapshot(page([], [el(5, 'style', { _cssText: css })]))
    expect(doc.pointer.matches(['late'], null)).toBe(false)
    expect(doc.get(5)?.attrs._cssText).toHaveLength(MAX_STYLESHEET_CHARS)
  })

  it('describes an element with a megabyte class, id and text', async () => {
    const body = page([
      el(30, 'button', { class: run('btn '), id: run('i') }, [txt(31, `Checkout ${run('x')}`)]),
    ])
    const b = session(body)
    for (let i = 0; i < 4; i++) b.click(31).wait(150)
    const { findings, digest } = await analyse(b)
    expect(findings.map((f) => f.kind)).toEqual(['rage_click'])
    const element = findings[0]!.trigger!.element
    expect(element.text.startsWith('Checkout xxx')).toBe(true)
    expect(element.text.length).toBeLessThanOrEqual(100)
    expect(element.selector.length).toBeLessThanOrEqual(300)
    expect(element.id?.length).toBe(MAX_ATTRIBUTE_CHARS)
    expect(digest.clicks[0]!.selector.length).toBeLessThanOrEqual(300)
  })

  it('applies a megabyte style change and text change', async () => {
    const b = session(page([el(40, 'div', { style: 'color: red' }, [txt(41, 'x')])]))
      .mutation({ attributes: [{ id: 40, attributes: { style: { [run('c', 1000)]: run('v') } } }] })
      .text(41, run('t'))
      .mutation({ attributes: [{ id: 40, attributes: { style: run(';color:'), title: run('@') } }] })
    const { eventCount } = await analyse(b)
    expect(eventCount).toBeGreaterThan(5)
  })
})

describe('URLs of any length', () => {
  it('reports a failed request to a megabyte URL on a megabyte page URL', async () => {
    const pageUrl = `https://shop.example/${run('a/')}`
    const b = new SessionBuilder()
      .load(pageUrl, page([]))
      .wait(1000)
      .navigate(`https://shop.example/p?${run('q=1&')}`)
      .request({ url: `https://api.example/${run('x:1')}?${run('a=b&')}`, method: run('POST'), status: 503 })
    const { findings, digest } = await analyse(b)
    expect(findings.map((f) => f.kind)).toEqual(['network_error'])
    const { url, method } = evidence(findings[0]) as { url: string; method: string }
    expect(url.length).toBeLessThanOrEqual(MAX_URL_CHARS)
    expect(url.startsWith('https://api.example/x:1x:1')).toBe(true)
    expect(method.length).toBeLessThanOrEqual(256)
    expect(findings[0]!.url.length).toBeLessThanOrEqual(MAX_URL_CHARS)
    expect(digest.pages).toHaveLength(2)
    for (const visited of digest.pages) expect(visited.url.length).toBeLessThanOrEqual(MAX_URL_CHARS)
  })
})
