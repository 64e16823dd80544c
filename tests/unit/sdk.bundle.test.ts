import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { etagMatches, readSdkBundle, SDK_BUNDLE_PATH } from '@/lib/sdk/bundle'

describe('readSdkBundle', () => {
  it('is null before the bundle is built', () => {
    expect(readSdkBundle(mkdtempSync(path.join(tmpdir(), 'sdk-')))).toBeNull()
  })

  it('reads the built file with a content ETag, and picks up a rebuild', () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'sdk-'))
    const file = path.join(cwd, SDK_BUNDLE_PATH)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, 'window.SessionReplay={}')
    const first = readSdkBundle(cwd)!
    expect(Buffer.from(first.body).toString()).toBe('window.SessionReplay={}')
    expect(first.etag).toMatch(/^"[\w-]{27}"$/)
    expect(readSdkBundle(cwd)).toBe(first)
    writeFileSync(file, 'window.SessionReplay={v:2}')
    utimesSync(file, new Date(), new Date(Date.now() + 5000))
    const second = readSdkBundle(cwd)!
    expect(second.etag).not.toBe(first.etag)
  })
})

describe('etagMatches', () => {
  it('compares weakly, accepts lists and *', () => {
    expect(etagMatches('"abc"', '"abc"')).toBe(true)
    expect(etagMatches('W/"abc"', '"abc"')).toBe(true)
    expect(etagMatches('"x", "abc"', '"abc"')).toBe(true)
    expect(etagMatches('*', '"abc"')).toBe(true)
    expect(etagMatches('"abd"', '"abc"')).toBe(false)
    expect(etagMatches(null, '"abc"')).toBe(false)
  })
})
