import { openBytes, sealBytes } from '@/lib/crypto/sealed'
import type { BlobStore } from '@/lib/storage/types'
import { EXPORT_PART_BYTES } from './export-view'

/**
 * An export's NDJSON file in blob storage: consecutive parts of at most EXPORT_PART_BYTES plain
 * bytes (plus the line that crossed the mark), each sealed on its own with the export's data
 * key. Parts because the stores write whole objects only and the file may reach 512 MiB;
 * sealed per part so that neither writing nor reading ever holds more than one part.
 */

export function exportFolder(organizationId: string, exportId: string): string {
  return `orgs/${organizationId}/exports/${exportId}/`
}

export function exportPartKey(organizationId: string, exportId: string, index: number): string {
  return `${exportFolder(organizationId, exportId)}part-${String(index).padStart(5, '0')}.sealed`
}

/** Collects lines into parts and stores each sealed part as soon as it is full. */
export class ExportFileWriter {
  private chunks: Buffer[] = []
  private pending = 0
  parts = 0
  bytes = 0

  constructor(
    private readonly blobs: BlobStore,
    private readonly organizationId: string,
    private readonly exportId: string,
    private readonly dataKey: Uint8Array,
    private readonly partBytes = EXPORT_PART_BYTES,
  ) {}

  async write(line: Buffer): Promise<void> {
    this.chunks.push(line)
    this.pending += line.byteLength
    this.bytes += line.byteLength
    if (this.pending >= this.partBytes) await this.flush()
  }

  /** Stores what is buffered as the next part (also the last, short one). */
  async flush(): Promise<void> {
    if (this.pending === 0) return
    const plain = Buffer.concat(this.chunks)
    this.chunks = []
    this.pending = 0
    const key = exportPartKey(this.organizationId, this.exportId, this.parts)
    await this.blobs.put(key, sealBytes(plain, this.dataKey), { contentType: 'application/octet-stream' })
    this.parts++
  }
}

/** The file's plain NDJSON bytes, one part opened at a time as the reader pulls. */
export function exportFileStream(
  blobs: BlobStore,
  organizationId: string,
  exportId: string,
  parts: number,
  dataKey: Uint8Array,
): ReadableStream<Uint8Array> {
  let index = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index >= parts) {
        controller.close()
        return
      }
      const key = exportPartKey(organizationId, exportId, index++)
      const sealed = await blobs.get(key)
      if (!sealed) {
        controller.error(new Error(`Export part ${index - 1} is missing from blob storage`))
        return
      }
      controller.enqueue(openBytes(sealed, dataKey))
    },
  })
}
