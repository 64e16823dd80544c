import { describe, expect, it } from 'vitest'
import { pairMaps, resolveMapReference } from '@/lib/sourcemaps/pairing'
import {
  COMMENT_TAIL_BYTES,
  readDebugIdComment,
  readSourceMappingUrl,
  readTrailingComments,
} from '@/lib/symbolication/comments'

describe('pairMaps', () => {
  it('pairs a map with the file named by its path without .map, first', () => {
    const pairs = pairMaps(
      ['a/app.js.map'],
      [
        { path: 'a/app.js', sourceMappingUrl: null },
        { path: 'a/other.js', sourceMappingUrl: 'app.js.map' },
      ],
    )
    expect(pairs).toEqual(new Map([['a/app.js.map', 'a/app.js']]))
  })

  it('else pairs the file whose sourceMappingURL names the map: relative, root-relative or a full URL', () => {
    const minified = [
      { path: 'assets/one-1a2b.js', sourceMappingUrl: '../maps/one.map?v=3' },
      { path: 'assets/two-3c4d.js', sourceMappingUrl: '/static/maps/two.map' },
      { path: 'assets/three-5e6f.js', sourceMappingUrl: 'https://cdn.example/x/maps/three.map' },
      { path: 'assets/inline.js', sourceMappingUrl: 'data:application/json;base64,e30=' },
    ]
    expect(
      pairMaps(['maps/one.map', 'maps/two.map', 'maps/three.map', 'maps/lonely.js.map'], minified),
    ).toEqual(
      new Map([
        ['maps/one.map', 'assets/one-1a2b.js'],
        ['maps/two.map', 'assets/two-3c4d.js'],
        ['maps/three.map', 'assets/three-5e6f.js'],
        // No file in the upload: the address is where bundlers put it, beside the map.
        ['maps/lonely.js.map', 'maps/lonely.js'],
      ]),
    )
  })

  it('refuses two maps for one file, and one map named by two files', () => {
    // A full URL matches every map whose path it ends with: both would describe one file.
    expect(() =>
      pairMaps(
        ['maps/app.map', 'static/maps/app.map'],
        [{ path: 'app-1.js', sourceMappingUrl: '/static/maps/app.map' }],
      ),
    ).toThrow('maps/app.map and static/maps/app.map both describe app-1.js')
    expect(() =>
      pairMaps(
        ['m.map'],
        [
          { path: 'a.js', sourceMappingUrl: 'm.map' },
          { path: 'b.js', sourceMappingUrl: 'm.map' },
        ],
      ),
    ).toThrow('m.map: named by the sourceMappingURL of more than one file (a.js, b.js)')
  })

  it('never resolves a reference out of the upload', () => {
    expect(resolveMapReference('app.js', '../../etc/x.map')).toBeNull()
    expect(resolveMapReference('a/b/app.js', './c.map')).toEqual({ kind: 'relative', path: 'a/b/c.map' })
  })
})

describe('minified file comments', () => {
  it('reads the last sourceMappingURL and a debug ID in lowercase, ignoring one that is not a UUID', () => {
    const text =
      '//# sourceMappingURL=old.map\nx()\n//# debugId=ABCDEF01-2345-4678-89AB-CDEF01234567\n//# sourceMappingURL=app.js.map\n'
    expect(readSourceMappingUrl(text)).toBe('app.js.map')
    expect(readDebugIdComment(text)).toBe('abcdef01-2345-4678-89ab-cdef01234567')
    expect(readDebugIdComment('//# debugId=not-a-uuid')).toBeNull()
    expect(readSourceMappingUrl('x()')).toBeNull()
  })

  it("reads a file's comments from its last 4 KB only, never the whole file", () => {
    const code = Buffer.alloc(2 * 1024 * 1024, 'x')
    const tail = '\n//# debugId=ABCDEF01-2345-4678-89AB-CDEF01234567\n//# sourceMappingURL=app.js.map\n'
    expect(readTrailingComments(Buffer.concat([code, Buffer.from(tail)]))).toEqual({
      sourceMappingUrl: 'app.js.map',
      debugId: 'abcdef01-2345-4678-89ab-cdef01234567',
    })
    // Comments followed by more than the tail's worth of code are not where bundlers put them.
    const buried = Buffer.concat([Buffer.from(tail), Buffer.alloc(COMMENT_TAIL_BYTES, 'x')])
    expect(readTrailingComments(buried)).toEqual({ sourceMappingUrl: null, debugId: null })
  })
})
