/**
 * Environment variables that stand in for values the recorder masked. The name says which
 * field it fills (REPRO_EMAIL, REPRO_PASSWORD...), so whoever runs the test knows what to set;
 * it is built from page text, so it is reduced to [A-Z0-9_] and bounded before it becomes code.
 *
 * The name comes from the attribute the step's locator finds the element by, and one variable
 * serves one locator: a forged recording whose field copies the password field's selector and
 * name but is found by the test id `review-body` gets REPRO_REVIEW_BODY, never REPRO_PASSWORD.
 */
import { withoutCutMarker } from './code'
import type { Locator } from './locators'
import { NO_SANDBOX_VARIABLE } from './site-guard'

const MAX_FIELD_NAME = 32
const PREFIX = 'REPRO_'
/** Variables of the test itself, which no field may take (a field labelled "Base URL" included). */
const RESERVED = ['REPRO_BASE_URL', NO_SANDBOX_VARIABLE]

function sanitise(text: string): string {
  let out = ''
  let underscore = false
  // Character by character: linear whatever the text, and bounded by the cap.
  for (const char of text.normalize('NFKD').toUpperCase()) {
    if (out.length >= MAX_FIELD_NAME) break
    if ((char >= 'A' && char <= 'Z') || (char >= '0' && char <= '9')) {
      out += char
      underscore = false
    } else if (!underscore && out !== '') {
      out += '_'
      underscore = true
    }
  }
  // The loop never writes two underscores in a row, so at most one trails.
  return out.endsWith('_') ? out.slice(0, -1) : out
}

/** Hands out one variable per locator, the same one each time the locator comes back. */
export class Placeholders {
  private readonly byField = new Map<string, string>()
  private readonly taken = new Set<string>(RESERVED)

  nameFor(locator: Locator): string {
    const known = this.byField.get(locator.code)
    if (known) return known
    const base = `${PREFIX}${sanitise(withoutCutMarker(locator.source)) || 'FIELD'}`
    let name = base
    for (let n = 2; this.taken.has(name); n++) name = `${base}_${n}`
    this.byField.set(locator.code, name)
    this.taken.add(name)
    return name
  }

  get names(): string[] {
    return [...this.byField.values()]
  }
}
