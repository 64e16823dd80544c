import { describe, expect, it } from 'vitest'
import { decodePath, frameAddresses, uploadAddress } from '@/lib/symbolication/map-address'

describe('uploadAddress', () => {
  it('stores `~/path` without a prefix, without leading ./ and /', () => {
    expect(uploadAddress('./assets/app.js', null)).toBe('~/assets/app.js')
    expect(uploadAddress('/assets/app.js', null)).toBe('~/assets/app.js')
  })

  it('stores the on-disk path decoded, as a percent-encoded upload of it would be', () => {
    expect(uploadAddress('app/[slug]/page-abc.js', null)).toBe('~/app/[slug]/page-abc.js')
    expect(uploadAddress('app/%5Bslug%5D/page-abc.js', null)).toBe('~/app/[slug]/page-abc.js')
  })

  it('lower-cases the prefix scheme and host, keeps the case of its path, and decodes it', () => {
    expect(uploadAddress('app/[slug]/page-abc.js', 'HTTPS://CDN.Example.com/Static')).toBe(
      'https://cdn.example.com/Static/app/[slug]/page-abc.js',
    )
    expect(uploadAddress('a.js', 'https://cdn.example.com/my%20assets/')).toBe(
      'https://cdn.example.com/my assets/a.js',
    )
    expect(uploadAddress('a.js', 'https://cdn.example.com')).toBe('https://cdn.example.com/a.js')
  })

  it('keeps a malformed escape and an encoded slash as written', () => {
    expect(uploadAddress('a%zz/b%E0.js', null)).toBe('~/a%zz/b%E0.js')
    expect(uploadAddress('a%2Fb.js', null)).toBe('~/a%2Fb.js')
  })
})

describe('frameAddresses', () => {
  it('yields the full URL and `~/path`, raw then decoded, most specific first, without the query', () => {
    expect(frameAddresses('https://CDN.example.com/static/app/%5Bslug%5D/page-abc.js?v=1#x')).toEqual([
      'https://cdn.example.com/static/app/%5Bslug%5D/page-abc.js',
      'https://cdn.example.com/static/app/[slug]/page-abc.js',
      '~/static/app/%5Bslug%5D/page-abc.js',
      '~/static/app/[slug]/page-abc.js',
    ])
  })

  it('deduplicates when nothing is encoded, and keeps a relative URL', () => {
    expect(frameAddresses('https://shop.example/assets/app.js')).toEqual([
      'https://shop.example/assets/app.js',
      '~/assets/app.js',
    ])
    expect(frameAddresses('/assets/app.js')).toEqual(['/assets/app.js', '~/assets/app.js'])
  })

  it('meets what an upload stored for the same file', () => {
    const stored = uploadAddress('app/[slug]/page-abc.js', 'https://CDN.Example.com/static')
    expect(frameAddresses('https://cdn.example.com/static/app/%5Bslug%5D/page-abc.js')).toContain(stored)
    expect(frameAddresses('https://any.example/app/%5Bslug%5D/page-abc.js')).toContain(
      uploadAddress('app/[slug]/page-abc.js', null),
    )
  })

  it('keeps a truncated escape in a frame URL as reported', () => {
    expect(decodePath('%E0%A4%A')).toBe('%E0%A4%A')
    expect(frameAddresses('https://a.example/x%E0%A4%A.js')).toEqual([
      'https://a.example/x%E0%A4%A.js',
      '~/x%E0%A4%A.js',
    ])
  })
})
