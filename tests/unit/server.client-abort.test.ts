/**
 * A client that goes away mid-answer (a dropped RSC stream) is not an error of ours
 * (server/client-abort.mjs): logged at debug level, while real errors stay error lines.
 */
import { describe, expect, it, vi } from 'vitest'
import { isClientAbort, quietClientAborts } from '../../server/client-abort.mjs'

/** As Next wraps a write onto a socket the client closed (next/dist/server/pipe-readable.js). */
function nextPipeFailure(cause: Error): Error {
  return new Error('failed to pipe response', {
    cause: new Error('failed to write chunk to response', { cause }),
  })
}

function codeError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code })
}

describe('isClientAbort', () => {
  it.each([
    ['a reset socket under Next’s pipe failure', nextPipeFailure(codeError('read ECONNRESET', 'ECONNRESET'))],
    ['a broken pipe', nextPipeFailure(codeError('write EPIPE', 'EPIPE'))],
    ['a premature close', codeError('Premature close', 'ERR_STREAM_PREMATURE_CLOSE')],
    [
      'a write after the response was destroyed',
      nextPipeFailure(codeError('Cannot call write after a stream was destroyed', 'ERR_STREAM_DESTROYED')),
    ],
    ['an AbortError', Object.assign(new Error('This operation was aborted'), { name: 'AbortError' })],
    ['Next’s ResponseAborted', Object.assign(new Error('aborted'), { name: 'ResponseAborted' })],
    ['a request the client hung up on', new Error('aborted')],
  ])('is true for %s', (_label, error) => {
    expect(isClientAbort(error)).toBe(true)
  })

  it.each([
    ['a render error', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['Next’s pipe failure caused by a render error', nextPipeFailure(new TypeError('boom'))],
    [
      'a database that refused the connection',
      codeError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    ],
    ['a string', 'ECONNRESET'],
    ['nothing', undefined],
  ])('is false for %s', (_label, error) => {
    expect(isClientAbort(error)).toBe(false)
  })

  it('stops at a bounded depth of causes, even a cycle', () => {
    const a: Error & { cause?: unknown } = new Error('a')
    const b = new Error('b', { cause: a })
    a.cause = b
    expect(isClientAbort(a)).toBe(false)
  })
})

describe('quietClientAborts', () => {
  function fakeConsole() {
    return { error: vi.fn(), debug: vi.fn(), log: vi.fn() }
  }

  it('keeps real errors as error lines and drops client aborts at the default level', () => {
    const out = fakeConsole()
    const { error } = out
    quietClientAborts(out, 'info')
    out.error(' ⨯', nextPipeFailure(codeError('read ECONNRESET', 'ECONNRESET')))
    out.error('request failed', codeError('write EPIPE', 'EPIPE'))
    expect(error).not.toHaveBeenCalled()
    const real = new TypeError('boom')
    out.error(' ⨯', real)
    out.error('plain text line')
    expect(error.mock.calls).toEqual([[' ⨯', real], ['plain text line']])
    expect(out.debug).not.toHaveBeenCalled()
  })

  it('shows client aborts as debug lines when LOG_LEVEL is debug', () => {
    const out = fakeConsole()
    const { error } = out
    quietClientAborts(out, 'debug')
    out.error(' ⨯', nextPipeFailure(codeError('read ECONNRESET', 'ECONNRESET')))
    expect(error).not.toHaveBeenCalled()
    expect(out.debug).toHaveBeenCalledOnce()
  })
})
