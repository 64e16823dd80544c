import { describe, expect, it } from 'vitest'
import { resolveOptions } from '@/sdk/src/options'

const base = { apiKey: 'svc_pk_abc', ingestUrl: 'https://ingest.example.com/' }

describe('resolveOptions', () => {
  it('applies the defaults: privacy on, 5 s / 50 events / 512 KB batches, 30 min idle', () => {
    const result = resolveOptions(base)
    expect(result).toEqual({
      ok: true,
      options: {
        apiKey: 'svc_pk_abc',
        ingestUrl: 'https://ingest.example.com',
        endpoint: 'https://ingest.example.com/api/sdk/replay',
        maskAllInputs: true,
        blockSelector: '[data-svc-block]',
        maskTextSelector: '[data-svc-mask]',
        flushIntervalMs: 5000,
        maxBatchEvents: 50,
        maxBatchBytes: 512 * 1024,
        sessionIdleTimeoutMs: 30 * 60 * 1000,
        consoleLevels: ['error', 'warn', 'assert'],
        networkIgnoreUrls: [],
        debug: false,
        release: null,
        networkDetails: null,
        sessionSampleRate: 1,
        errorSampleRate: 1,
        errorBufferMs: 60_000,
        allowPages: [],
        denyPages: [],
        mutationGuard: { maxMutationsPerSecond: 1000 },
        recordCanvas: null,
        recordCrossOriginIframes: false,
        parentOrigins: [],
        childOrigins: null,
        consent: 'granted',
        storage: 'browser',
      },
    })
  })

  it('resolves network details: defaults, lower-cased lists, credential headers never kept', () => {
    const result = resolveOptions({
      ...base,
      networkDetails: {
        urls: ['/api/', /example\.com/],
        headers: ['Content-Type', 'Authorization', 'COOKIE', 'x-request-id', 'content-type'],
        redactKeys: [' SSN '],
      },
    })
    expect(result.ok && result.options.networkDetails).toEqual({
      urls: ['/api/', /example\.com/],
      headers: ['content-type', 'x-request-id'],
      requestBody: true,
      responseBody: true,
      maxBodyBytes: 10_000,
      redactKeys: ['ssn'],
      failuresOnly: false,
    })
  })

  it.each([
    [{ networkDetails: {} }, 'networkDetails.urls must name at least one URL'],
    [
      { networkDetails: { urls: [''] } },
      'networkDetails.urls must be an array of non-empty strings or regular expressions',
    ],
    [{ networkDetails: { urls: ['/'], bodies: true } }, 'unknown networkDetails option "bodies"'],
    [
      { networkDetails: { urls: ['/'], maxBodyBytes: 70_000 } },
      'networkDetails.maxBodyBytes must be a whole number from 0 to 65536',
    ],
    [
      { networkDetails: { urls: ['/'], failuresOnly: 'yes' } },
      'networkDetails.failuresOnly must be true or false',
    ],
    [{ sessionSampleRate: 1.5 }, 'sessionSampleRate must be a number from 0 to 1'],
    [{ errorSampleRate: Number.NaN }, 'errorSampleRate must be a number from 0 to 1'],
    [{ errorBufferMs: 10 }, 'errorBufferMs must be a whole number from 1000 to 300000'],
    [{ denyPages: '/admin' }, 'denyPages must be an array of non-empty strings or regular expressions'],
    [
      { mutationGuard: { maxMutationsPerSecond: 5 } },
      'mutationGuard.maxMutationsPerSecond must be a whole number from 10 to 1000000',
    ],
    [{ mutationGuard: 'on' }, 'mutationGuard must be true, false or { maxMutationsPerSecond }'],
    [{ recordCanvas: { fps: 60 } }, 'recordCanvas.fps must be a whole number from 1 to 30'],
    [{ recordCanvas: { quality: 0 } }, 'recordCanvas.quality must be a number above 0 and at most 1'],
    [{ recordCrossOriginIframes: 1 }, 'recordCrossOriginIframes must be true or false'],
    [
      { recordCrossOriginIframes: true, parentOrigins: ['https://*.example.com'] },
      'parentOrigins must be an array of 1 to 20 origins like "https://app.example.com" (no path or wildcard), got "https://*.example.com"',
    ],
    [
      { recordCrossOriginIframes: true, parentOrigins: ['https://app.example.com/embed'] },
      'parentOrigins must be an array of 1 to 20 origins like "https://app.example.com" (no path or wildcard), got "https://app.example.com/embed"',
    ],
    [
      { recordCrossOriginIframes: true, parentOrigins: [] },
      'parentOrigins must be an array of 1 to 20 origins like "https://app.example.com" (no path or wildcard)',
    ],
    [{ parentOrigins: ['https://app.example.com'] }, 'parentOrigins needs recordCrossOriginIframes: true'],
    [{ childOrigins: ['https://widget.example.com'] }, 'childOrigins needs recordCrossOriginIframes: true'],
    [
      { recordCrossOriginIframes: true, childOrigins: ['*'] },
      'childOrigins must be an array of 1 to 20 origins like "https://app.example.com" (no path or wildcard), got "*"',
    ],
  ])('refuses %j with a clear error', (extra, error) => {
    expect(resolveOptions({ ...base, ...extra })).toEqual({ ok: false, error })
  })

  it('resolves the guard off, canvas on and sampling rates as given', () => {
    const result = resolveOptions({
      ...base,
      mutationGuard: false,
      recordCanvas: { fps: 5 },
      sessionSampleRate: 0,
      errorSampleRate: 0.25,
    })
    expect(result.ok && result.options).toMatchObject({
      mutationGuard: null,
      recordCanvas: { fps: 5, quality: 0.6 },
      sessionSampleRate: 0,
      errorSampleRate: 0.25,
    })
  })

  it('takes parentOrigins as exact origins, as a message event spells them', () => {
    const result = resolveOptions({
      ...base,
      recordCrossOriginIframes: true,
      parentOrigins: ['https://App.Example.com/', 'http://localhost:3000', 'https://app.example.com:443'],
    })
    expect(result.ok && result.options.parentOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:3000',
    ])
  })

  it('takes a release, trimmed, for metadata.release', () => {
    const result = resolveOptions({ ...base, release: ' 2026.11.26-abc123 ' })
    expect(result.ok && result.options.release).toBe('2026.11.26-abc123')
  })

  it('adds selectors to the built-in ones rather than replacing them', () => {
    const result = resolveOptions({ ...base, blockSelector: '.private', maskTextSelector: '.pii' })
    expect(result.ok && result.options.blockSelector).toBe('[data-svc-block], .private')
    expect(result.ok && result.options.maskTextSelector).toBe('[data-svc-mask], .pii')
  })

  it.each([
    [{}, 'apiKey must be the public ingest key that starts with svc_pk_'],
    [{ ...base, apiKey: 'svc_api_secret' }, 'apiKey must be the public ingest key that starts with svc_pk_'],
    [{ ...base, ingestUrl: 'ftp://x' }, 'ingestUrl must be an http(s) address'],
    [{ ...base, ingestUrl: 'https://x.example/?key=1' }, 'ingestUrl must be an http(s) address'],
    [{ ...base, flushIntervalMs: 'often' }, 'flushIntervalMs must be a whole number from 100 to 600000'],
    [{ ...base, maxBatchEvents: 0 }, 'maxBatchEvents must be a whole number'],
    [{ ...base, sessionIdleTimeoutMs: 10 }, 'sessionIdleTimeoutMs must be a whole number'],
    [{ ...base, consoleLevels: ['fatal'] }, 'consoleLevels must be an array of'],
    [{ ...base, networkIgnoreUrls: 'x' }, 'networkIgnoreUrls must be an array'],
    [{ ...base, maskAllInputs: 'no' }, 'maskAllInputs must be true or false'],
    [{ ...base, apikey: 'typo' }, 'unknown option "apikey"'],
    [{ ...base, release: '' }, 'release must be a non-empty string of at most 200 characters'],
    [{ ...base, release: 'x'.repeat(201) }, 'release must be a non-empty string'],
    [{ ...base, release: 'v1\u0000' }, 'release must be a non-empty string'],
    [{ ...base, release: 42 }, 'release must be a non-empty string'],
    [null, 'options must be an object'],
  ])('rejects %j', (input, message) => {
    const result = resolveOptions(input)
    expect(result.ok).toBe(false)
    expect(!result.ok && result.error).toContain(message)
  })
})
