import { describe, expect, it } from 'vitest'
import { analysisDue, describeSeconds } from '@/lib/processing/analysis-due'
import { MAX_PROCESSING_ATTEMPTS } from '@/lib/processing/claim'

const schedule = { idleSeconds: 60, finalizerIntervalSeconds: 15 }
const at = (iso: string) => new Date(`2026-11-25T${iso}Z`)

describe('analysisDue', () => {
  it('is due the idle time plus one sweep after the last batch', () => {
    const due = analysisDue(
      {
        status: 'receiving',
        lastReceivedAt: at('20:13:00'),
        processingRequestedAt: null,
        processingAttempts: 0,
      },
      schedule,
    )
    expect(due).toEqual({ kind: 'idle', idleSeconds: 60, by: at('20:14:15') })
  })

  it('is queued once a final batch (or the finalizer) asked, until another batch arrives', () => {
    const state = {
      status: 'receiving' as const,
      lastReceivedAt: at('20:13:00'),
      processingRequestedAt: at('20:13:00'),
      processingAttempts: 0,
    }
    expect(analysisDue(state, schedule).kind).toBe('queued')
    expect(analysisDue({ ...state, lastReceivedAt: at('20:13:05') }, schedule).kind).toBe('idle')
  })

  it('tells analysing, analysed, retried and given up apart', () => {
    const base = { lastReceivedAt: at('20:13:00'), processingRequestedAt: null, processingAttempts: 1 }
    expect(analysisDue({ ...base, status: 'processing' }, schedule).kind).toBe('now')
    expect(analysisDue({ ...base, status: 'processed' }, schedule).kind).toBe('done')
    const now = at('20:20:00').getTime()
    expect(analysisDue({ ...base, status: 'failed' }, schedule, now)).toEqual({
      kind: 'retry',
      by: at('20:20:15'),
    })
    expect(
      analysisDue({ ...base, status: 'failed', processingAttempts: MAX_PROCESSING_ATTEMPTS }, schedule).kind,
    ).toBe('given-up')
  })

  it('says the idle time as people do', () => {
    expect([60, 90, 120, 1800, 3600, 7200].map(describeSeconds)).toEqual([
      'a minute',
      '90 seconds',
      '2 minutes',
      '30 minutes',
      'an hour',
      '2 hours',
    ])
  })
})
