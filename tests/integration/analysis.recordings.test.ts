/**
 * The analyser over real rrweb sessions recorded in Chromium (tests/fixtures/recordings, made
 * by tests/fixtures/record/record.ts): every expected issue is found, nothing else is, and the
 * same error in three sessions gets one fingerprint.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { analyzeEvents } from '@/lib/analysis'
import type { AnalysisResult, Finding, RrwebEvent } from '@/lib/analysis/types'
import { pathPattern } from '@/lib/analysis/url'
import type { ExpectedFile, ExpectedIssue } from '@/tests/fixtures/record/expected'

const DIR = path.resolve(import.meta.dirname, '../fixtures/recordings')
const expected = JSON.parse(readFileSync(path.join(DIR, 'expected.json'), 'utf8')) as ExpectedFile
const names = readdirSync(DIR)
  .filter((file) => file.endsWith('.json') && file !== 'expected.json')
  .map((file) => file.slice(0, -'.json'.length))
  .sort()

const results = new Map<string, Promise<AnalysisResult>>()

function analyse(name: string): Promise<AnalysisResult> {
  let result = results.get(name)
  if (!result) {
    const recording = JSON.parse(readFileSync(path.join(DIR, `${name}.json`), 'utf8')) as {
      events: RrwebEvent[]
      ingestUrl?: string
    }
    // As in production: the service's own ingest endpoint is never a finding.
    result = analyzeEvents(recording.events, {
      ignoreRequestUrls: recording.ingestUrl ? [recording.ingestUrl] : [],
    })
    results.set(name, result)
  }
  return result
}

function messageOf(finding: Finding): string {
  const { evidence } = finding
  return String(finding.kind === 'network_error' ? evidence.url : evidence.message)
}

function matches(finding: Finding, issue: ExpectedIssue): boolean {
  if (finding.kind !== issue.kind || finding.pathPattern !== pathPattern(issue.where)) return false
  if (issue.target !== undefined && !finding.trigger?.element.text.includes(issue.target)) return false
  if (issue.messageIncludes !== undefined && !messageOf(finding).includes(issue.messageIncludes)) return false
  if (issue.status !== undefined && finding.evidence.status !== issue.status) return false
  return issue.method === undefined || finding.evidence.method === issue.method
}

/** The expected priority and follow-up, checked once the finding is matched (issue 15). */
function graded(finding: Finding, issue: ExpectedIssue): { priority?: string; followUp?: unknown } {
  return {
    ...(issue.priority ? { priority: finding.priority } : {}),
    ...(issue.followUp ? { followUp: finding.evidence.followUp } : {}),
  }
}

function summary(finding: Finding): string {
  return `${finding.kind} ${finding.pathPattern} “${finding.trigger?.element.text ?? ''}” ${messageOf(finding)} — ${finding.title}`
}

describe('analysis of real recordings', () => {
  it('has an expectation for every recording', () => {
    expect(names.length).toBeGreaterThan(0)
    expect(names).toEqual(Object.keys(expected.recordings).sort())
  })

  it.each(names)('%s: finds exactly the expected issues', async (name) => {
    const { findings } = await analyse(name)
    const wanted = expected.recordings[name] ?? []
    const unmatched = [...findings]
    const missing: ExpectedIssue[] = []
    const grades: { wanted: object; got: object }[] = []
    for (const issue of wanted) {
      const at = unmatched.findIndex((finding) => matches(finding, issue))
      if (at === -1) missing.push(issue)
      else {
        const got = graded(unmatched[at]!, issue)
        grades.push({ wanted: { priority: issue.priority, followUp: issue.followUp }, got })
        unmatched.splice(at, 1)
      }
    }
    expect({ missing, extra: unmatched.map(summary) }).toEqual({ missing: [], extra: [] })
    for (const grade of grades) expect(grade.got).toEqual(grade.wanted)
  })

  it('produces well-formed findings, digests and summaries', async () => {
    for (const name of names) {
      const result = await analyse(name)
      expect(result.summary.durationMs).toBeGreaterThan(0)
      expect(result.summary.pageCount).toBeGreaterThanOrEqual(1)
      expect(result.digest.pages.length).toBe(result.summary.pageCount)
      for (const finding of result.findings) {
        expect(finding.fingerprint).toMatch(/^[0-9a-f]{64}$/)
        expect(finding.stepsToReplicate).toMatch(/^1\. /)
        expect(['critical', 'high', 'medium', 'low']).toContain(finding.priority)
        // Masked or not, input values never reach the text a person reads.
        expect(finding.stepsToReplicate).not.toMatch(/\*{2,}/)
      }
    }
  })

  it.each(expected.crossSession)('$recordings.0 and siblings share one fingerprint', async (group) => {
    const fingerprints: string[] = []
    for (const name of group.recordings) {
      const { findings } = await analyse(name)
      const matching = findings.filter(
        (f) => f.kind === group.kind && messageOf(f).includes(group.messageIncludes),
      )
      expect(matching).toHaveLength(1)
      fingerprints.push(matching[0]!.fingerprint)
    }
    expect(new Set(fingerprints).size).toBe(1)
    expect(new Set(group.recordings).size).toBe(group.sessionCount)
  })

  it('counts both clicks of the longer session as occurrences of one finding', async () => {
    const { findings } = await analyse('same-error-3-sessions-2')
    expect(findings).toHaveLength(1)
    expect(findings[0]!.occurrences).toBe(2)
  })
})
