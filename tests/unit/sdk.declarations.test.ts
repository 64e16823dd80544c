/**
 * sdk/index.d.ts, the types of the package served at /sdk.tgz, against the source it declares:
 * `tsc --noEmit -p .` (npm run typecheck) checks these type equalities, and the runtime half
 * checks that the package's entry exports exactly the declared calls.
 */
import { describe, expect, expectTypeOf, it } from 'vitest'
import type * as Declared from '@/sdk/index'
import * as Source from '@/sdk/src/index'
import type * as SourceOptions from '@/sdk/src/options'

describe('sdk/index.d.ts', () => {
  it('declares the source’s calls with the source’s types', () => {
    expectTypeOf<typeof Declared.init>().toEqualTypeOf<typeof Source.init>()
    expectTypeOf<typeof Declared.identify>().toEqualTypeOf<typeof Source.identify>()
    expectTypeOf<typeof Declared.stop>().toEqualTypeOf<typeof Source.stop>()
    expectTypeOf<typeof Declared.setConsent>().toEqualTypeOf<typeof Source.setConsent>()
    expectTypeOf<Declared.RecorderOptions>().toEqualTypeOf<Source.RecorderOptions>()
    expectTypeOf<Declared.Consent>().toEqualTypeOf<Source.Consent>()
    expectTypeOf<Declared.ConsoleLevel>().toEqualTypeOf<Source.ConsoleLevel>()
    expectTypeOf<Declared.StorageMode>().toEqualTypeOf<Source.StorageMode>()
    expectTypeOf<Declared.NetworkDetailsOptions>().toEqualTypeOf<SourceOptions.NetworkDetailsOptions>()
    expectTypeOf<Declared.UrlPattern>().toEqualTypeOf<SourceOptions.UrlPattern>()
  })

  it('names every public call of the source (the package leaves out only the script tag’s initWith)', () => {
    const declared = ['identify', 'init', 'setConsent', 'stop']
    expect(
      Object.keys(Source)
        .filter((name) => name !== 'initWith')
        .sort(),
    ).toEqual(declared)
  })
})
