/**
 * Character classes for the scanners that replace backtracking patterns (issue 14): each
 * tests one UTF-16 unit exactly as the regular-expression class it is named after does
 * (no `u` flag), so a scanner keeps the result of the pattern it replaced.
 */

/** `\d` */
export function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57
}

/** `\w`: ASCII letters, digits and `_`. */
export function isWordCode(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || isDigitCode(code) || code === 95
}

/** `[\w-]` */
export function isNameCode(code: number): boolean {
  return isWordCode(code) || code === 45
}

/** `\s`: the same set String.prototype.trim removes. */
export function isSpaceAt(text: string, at: number): boolean {
  const char = text[at]
  return char !== undefined && char.trim() === ''
}

/** What `.` does not match without the `s` flag. */
export function isLineTerminatorCode(code: number): boolean {
  return code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029
}

/** ASCII letters to lower case, as the `i` flag folds them without `u`; nothing else changes. */
function asciiLowerCode(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code
}

/** Whether `text` holds `word` at `at`, ASCII letters compared without case (the `i` flag). */
export function startsWithIgnoringCase(text: string, word: string, at: number): boolean {
  if (at + word.length > text.length) return false
  for (let i = 0; i < word.length; i++) {
    if (asciiLowerCode(text.charCodeAt(at + i)) !== asciiLowerCode(word.charCodeAt(i))) return false
  }
  return true
}
