import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { sourcemapUploadExample } from '@/lib/sourcemaps/example'

describe('the CI step shown with a new upload key', () => {
  it('is bash that sends every .js and .map file under dist/, named by its path there', () => {
    const work = mkdtempSync(path.join(tmpdir(), 'sourcemaps-example-'))
    try {
      mkdirSync(path.join(work, 'dist/assets/chunks'), { recursive: true })
      for (const file of ['assets/app-3f9a.js', 'assets/app-3f9a.js.map', 'assets/chunks/c.js', 'index.html'])
        writeFileSync(path.join(work, 'dist', file), '')
      const script = sourcemapUploadExample('https://replay.example', 'svc_api_key')
      // curl replaced by a function that prints what it was given, one argument per line.
      const run = spawnSync('bash', ['-c', `curl() { printf '%s\\n' "$@"; }\nGIT_SHA=abc123\n${script}`], {
        cwd: work,
        encoding: 'utf8',
      })
      expect(run.stderr).toBe('')
      const args = run.stdout.trim().split('\n')
      expect(args).toContain('Authorization: Bearer svc_api_key')
      expect(args).toContain('release=abc123')
      expect(args.at(-1)).toBe('https://replay.example/api/v1/sourcemaps')
      const files = args.filter((arg) => arg.startsWith('file=')).sort()
      expect(files).toEqual([
        'file=@dist/assets/app-3f9a.js.map;filename=assets/app-3f9a.js.map',
        'file=@dist/assets/app-3f9a.js;filename=assets/app-3f9a.js',
        'file=@dist/assets/chunks/c.js;filename=assets/chunks/c.js',
      ])
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  })
})
