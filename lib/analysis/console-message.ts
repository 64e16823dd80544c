/**
 * A console plugin message as the console shows it: its arguments decoded and joined with
 * spaces, read only up to the length that is kept. An argument longer than any message is
 * not parsed at all, only cut, so a megabyte argument costs no more than a short one.
 */
import { boundedJson } from './bounded-json'
import { boundedStr, clip, MAX_MESSAGE_CHARS, MAX_NAME_CHARS } from './bounds'
import { consoleArgText } from './normalize'
import { arr, type Obj } from './rrweb'

export function consoleLevel(payload: Obj): string {
  return boundedStr(payload.level, MAX_NAME_CHARS) ?? 'log'
}

/** The message, at most `max` characters and one more when there was more to it. */
export function consoleMessage(payload: Obj, max: number): string {
  let out = ''
  for (const raw of arr(payload.payload)) {
    if (out.length > max) break
    const text =
      typeof raw !== 'string'
        ? boundedJson(raw, max + 1)
        : raw.length > MAX_MESSAGE_CHARS
          ? clip(raw, max + 1)
          : consoleArgText(raw)
    out = out ? `${out} ${text}` : text
  }
  return clip(out, max + 1)
}
