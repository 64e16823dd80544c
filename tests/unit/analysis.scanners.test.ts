/**
 * The scanners that replaced backtracking patterns (issue 14) must give exactly what those
 * patterns gave. Each is compared with its former pattern on many short strings built from
 * the characters that pattern cares about; short, so the former patterns stay fast here.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { clip } from '@/lib/analysis/bounds'
import { forEachRule, PointerRules, stripPseudo } from '@/lib/analysis/dom/css'
import { removeDeclaration } from '@/lib/analysis/dom/document'
import { isGeneratedId } from '@/lib/analysis/dom/element'
import { replaceEmails, truncate } from '@/lib/analysis/normalize'
import { cutQuery, parseFrame } from '@/lib/analysis/stack'
import { isEmailSegment } from '@/lib/analysis/url'
import { plainPreview } from '@/lib/insights/content'
import { fuzzRuns } from '../helpers/fuzz'

const RUNS = fuzzRuns(3000)

/** Strings of up to `maxLength` characters drawn from `alphabet`. */
function over(alphabet: string[], maxLength = 24): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...alphabet), { maxLength }).map((chars) => chars.join(''))
}

// ---- the former patterns, kept here as the reference ----

function formerParseFrame(line: string): { fn: string; url: string } | null {
  const V8_RE = /^\s*at\s+(?:(.*?)\s+\()?(.+?)(?::\d+)?(?::\d+)?\)?\s*$/
  const PARENS_RE = /^\s*(.*?)\s+\((.+?)(?::\d+)?(?::\d+)?\)\s*$/
  const AT_SIGN_RE = /^\s*(.*?)@(.+?)(?::\d+)?(?::\d+)?\s*$/
  const BARE_RE = /^\s*(\S+?)(?::\d+)(?::\d+)?\s*$/
  const text = line.trim()
  if (!text) return null
  const match = text.startsWith('at ')
    ? V8_RE.exec(text)
    : (PARENS_RE.exec(text) ?? AT_SIGN_RE.exec(text) ?? BARE_RE.exec(text))
  if (!match) return null
  const [fn, url] = match.length === 2 || match[2] === undefined ? ['', match[1]] : [match[1], match[2]]
  if (!url || !/[/.:]/.test(url)) return null
  return { fn: (fn ?? '').replace(/^async\s+/, '').trim(), url }
}

function formerRules(css: string): [string, string][] {
  const rules: [string, string][] = []
  for (const match of css.matchAll(/([^{}]+)\{([^{}]*)\}/g)) rules.push([match[1]!, match[2]!])
  return rules
}

function formerPlainPreview(markdown: string, length = 280): string {
  const plain = markdown
    .replace(/^#+\s*/gm, '')
    .replace(/\*\*|__|`/g, '')
    .replace(/^\s*[-*]\s+/gm, '')
    .replace(/\s+/g, ' ')
    .trim()
  return plain.length <= length ? plain : `${plain.slice(0, length - 1).trimEnd()}…`
}

describe('scanners agree with the patterns they replaced', () => {
  it('e-mail addresses', () => {
    const text = over(['a', 'B', '1', '_', '.', '+', '-', '@', ' ', 'é', '/'])
    fc.assert(
      fc.property(text, (value) => {
        expect(replaceEmails(value)).toBe(value.replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, '<email>'))
      }),
      RUNS,
    )
    expect(replaceEmails('mail ann.lee+x@mail.example.com, bob@b.io!')).toBe('mail <email>, <email>!')
  })

  it('stack frames', () => {
    const line = over(
      ['a', 't', 'at ', ' ', '\t', '\n', '\u2028', '(', ')', '@', ':', '1', '2', '/', '.', 'x'],
      18,
    )
    fc.assert(
      fc.property(line, (value) => {
        expect(parseFrame(value)).toEqual(formerParseFrame(value))
      }),
      RUNS,
    )
  })

  it('query and fragment cut from a frame URL', () => {
    fc.assert(
      fc.property(over(['a', '?', '#', '/', '\n', '\r', ':', '1']), (value) => {
        expect(cutQuery(value)).toBe(value.replace(/[?#].*$/, ''))
      }),
      RUNS,
    )
  })

  it('CSS rules and pseudo-classes', () => {
    fc.assert(
      fc.property(over(['a', '.', ' ', '{', '}', ';', ':', 'x']), (css) => {
        const rules: [string, string][] = []
        forEachRule(css, (selectors, body) => rules.push([selectors, body]))
        expect(rules).toEqual(formerRules(css))
      }),
      RUNS,
    )
    fc.assert(
      fc.property(over(['a', '-', ':', '::', '(', ')', '.', ' ']), (selector) => {
        expect(stripPseudo(selector)).toBe(selector.replace(/::?[\w-]+(\([^)]*\))?/g, ''))
      }),
      RUNS,
    )
  })

  it('a style declaration removed by name', () => {
    const style = over(['a', 'A', 'b', ' ', '\n', ':', ';', '-', 'x'])
    const name = over(['a', 'A', 'b', '-'], 3)
    fc.assert(
      fc.property(style, name, (value, prop) => {
        const former = value.replace(new RegExp(`(^|;)\\s*${prop}\\s*:[^;]*;?`, 'i'), '$1')
        expect(removeDeclaration(value, prop)).toBe(former)
      }),
      RUNS,
    )
  })

  it('generated ids and e-mail path segments', () => {
    fc.assert(
      fc.property(over(['a', 'f', 'F', 'g', '1', '-', '_', ':'], 20), (id) => {
        const hex = /(?=[0-9a-f]*\d)[0-9a-f]{8,}/i.test(id)
        const former =
          id.includes(':') ||
          /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.test(id) ||
          /\d{3,}/.test(id) ||
          id.split(/[-_.]/).some((part) => /^\d+$/.test(part)) ||
          /^[a-z]+\d{2,}$/i.test(id) ||
          hex
        expect(isGeneratedId(id)).toBe(former)
      }),
      RUNS,
    )
    fc.assert(
      fc.property(over(['a', '@', '.', '/', '-']), (segment) => {
        expect(isEmailSegment(segment)).toBe(/^[^@/]+@[^@/]+\.[^@/]+$/.test(segment))
      }),
      RUNS,
    )
  })

  it('list marks removed from an insight preview', () => {
    fc.assert(
      fc.property(over(['-', '*', ' ', '\n', '\r', '\t', 'a', '#', '`', '\u2028']), (markdown) => {
        expect(plainPreview(markdown)).toBe(formerPlainPreview(markdown))
      }),
      RUNS,
    )
  })
})

describe('cutting strings to a bound', () => {
  it('never leaves half a surrogate pair', () => {
    expect(clip('ab😀', 3)).toBe('ab')
    expect(clip('ab😀', 4)).toBe('ab😀')
    expect(truncate('ab😀cd', 4)).toBe('ab…')
    expect(clip('short', 100)).toBe('short')
  })

  it('reads pointer rules from CSS nested in at-rules', () => {
    const rules = new PointerRules()
    rules.addCss('@media (min-width: 1px) { .card .cta:hover, #buy { cursor: pointer } } .x { color: red }')
    expect(rules.matches(['cta'], null)).toBe(true)
    expect(rules.matches([], 'buy')).toBe(true)
    expect(rules.matches(['x'], null)).toBe(false)
  })
})
