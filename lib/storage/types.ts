/**
 * Blob storage port: replay batch events (exactly as sent) and other large objects.
 * Keys are slash-separated relative paths such as `org/<id>/sessions/<id>/00000001.json`.
 */
export interface PutOptions {
  contentType?: string
}

export interface BlobStore {
  readonly kind: 'vercel' | 's3' | 'local'
  /** Writes the whole object; a reader never sees a half-written one. Overwrites. */
  put(key: string, body: Uint8Array | string, options?: PutOptions): Promise<void>
  /** The whole object, or null when there is none. */
  get(key: string): Promise<Uint8Array | null>
  /** The object as a stream (analysis reads sessions without holding them in memory). */
  stream(key: string): Promise<ReadableStream<Uint8Array> | null>
  /** Deletes the given keys; unknown keys are ignored. */
  delete(keys: string[]): Promise<void>
  /** Lists keys under a prefix (retention, deleting a session). */
  list(prefix: string): Promise<string[]>
}
