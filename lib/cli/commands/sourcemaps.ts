import { stat } from 'node:fs/promises'
import path from 'node:path'
import { collectBuildFolder } from '@/lib/sourcemaps/collect-dir'
import { uploadSourcemaps } from '@/lib/sourcemaps/upload'
import { getBlobStore } from '@/lib/storage'
import { type CliCommand, optionalString, requireString, UsageError } from '../command'

export const sourcemapsUpload: CliCommand = {
  name: 'sourcemaps:upload',
  summary: 'Upload the source maps of a build folder for one release (as POST /api/v1/sourcemaps)',
  usage: 'sourcemaps:upload --org ID --release R --dir DIR [--url-prefix URL]',
  options: {
    org: { type: 'string' },
    release: { type: 'string' },
    dir: { type: 'string' },
    'url-prefix': { type: 'string' },
  },
  async run(db, values) {
    const dir = path.resolve(requireString(values, 'dir', this.usage))
    const isDirectory = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    )
    if (!isDirectory) throw new UsageError(`--dir ${dir} is not a folder`)
    const result = await uploadSourcemaps(db, getBlobStore(), {
      organizationId: requireString(values, 'org', this.usage),
      release: requireString(values, 'release', this.usage),
      urlPrefix: optionalString(values, 'url-prefix'),
      files: await collectBuildFolder(dir),
    })
    return {
      json: { ...result },
      text: [
        `Stored ${result.files.length} source maps for release ${result.release}:`,
        ...result.files.map((f) => `  ${f.url}${f.debugId ? ` (debug ID ${f.debugId})` : ''}`),
      ].join('\n'),
    }
  },
}
