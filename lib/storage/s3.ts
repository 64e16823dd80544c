import { createHash } from 'node:crypto'
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import type { BlobChoice } from '@/lib/config'
import { toBody } from './body'
import { API_DEADLINE_MS, withDeadline } from './deadline'
import { assertValidBlobKey, assertValidBlobPrefix, isValidBlobKey } from './keys'
import type { BlobStore, PutOptions } from './types'

/**
 * Any S3-compatible object store: AWS S3, Cloudflare R2, MinIO, GCS's S3 API. Credentials come
 * from the SDK's own chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, an instance
 * or task role), never from variables of ours, so every way AWS documents keeps working.
 */

export type S3Choice = Extract<BlobChoice, { kind: 's3' }>

// ListObjectsV2 answers at most 1000 keys per page and DeleteObjects takes at most 1000 keys.
const PAGE_SIZE = 1000

/**
 * What the region is when S3_REGION is unset, the SDK's chain (AWS_REGION, the profile's config
 * file) has none, and an endpoint is set: S3-compatible servers sign with a region but most
 * ignore its value, and us-east-1 is what MinIO and s3rver expect by default and R2 accepts as
 * an alias of its `auto`. Without an endpoint (AWS itself) there is no fallback: there the
 * region must be the bucket's, a guess would fail every request with a redirect error, and the
 * SDK's own "Region is missing" says better what to set.
 */
const COMPATIBLE_DEFAULT_REGION = 'us-east-1'

type RegionProvider = () => Promise<string>

function regionFor(choice: S3Choice): string | RegionProvider | undefined {
  if (choice.region) return choice.region
  if (!choice.endpoint) return undefined
  // The SDK's own chain, borrowed from a client built without a region (no I/O until called).
  const bare = new S3Client({})
  const chain = bare.config.region
  bare.destroy()
  return async () => {
    try {
      return await chain()
    } catch {
      // The chain's last link throws "Region is missing"
      return COMPATIBLE_DEFAULT_REGION
    }
  }
}

/** The part of the SDK's HTTP request a build-step middleware may read and add headers to. */
interface OutgoingRequest {
  headers: Record<string, string>
  body?: unknown
}

function isOutgoingRequest(value: unknown): value is OutgoingRequest {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { headers?: unknown }).headers === 'object'
  )
}

/**
 * DeleteObjects must carry a checksum of its body. With WHEN_REQUIRED the SDK sends a CRC32
 * one, which MinIO releases before 2025 (and other servers that predate S3's newer checksums)
 * do not know: they answer MissingContentMD5, and retention would fail on every run. Content-MD5
 * is the checksum every S3-compatible server takes, and S3 itself accepts it beside the CRC.
 */
function withContentMd5(command: DeleteObjectsCommand): DeleteObjectsCommand {
  command.middlewareStack.add(
    (next) => async (args) => {
      const request: unknown = args.request
      if (isOutgoingRequest(request) && typeof request.body === 'string' && !request.headers['content-md5'])
        request.headers['content-md5'] = createHash('md5').update(request.body, 'utf8').digest('base64')
      return next(args)
    },
    { step: 'build', name: 'contentMd5ForCompatibleServers' },
  )
  return command
}

/** S3 answers a missing key with NoSuchKey; some compatible servers only with a bare 404. */
function isMissing(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  if (error.name === 'NoSuchKey' || error.name === 'NotFound') return true
  const metadata = '$metadata' in error ? (error.$metadata as { httpStatusCode?: number }) : undefined
  return metadata?.httpStatusCode === 404 && error.name !== 'NoSuchBucket'
}

export interface S3BlobStoreOptions {
  /** How long one call may take, retries included (API_DEADLINE_MS unless a test shortens it). */
  deadlineMs?: number
  /** Keys per list page and per delete request; tests use a small one to cross pages. */
  pageSize?: number
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const
  readonly bucket: string
  readonly deadlineMs: number
  readonly #client: S3Client
  readonly #pageSize: number

  constructor(choice: S3Choice, options: S3BlobStoreOptions = {}) {
    this.bucket = choice.bucket
    this.deadlineMs = options.deadlineMs ?? API_DEADLINE_MS
    this.#pageSize = options.pageSize ?? PAGE_SIZE
    this.#client = new S3Client({
      region: regionFor(choice),
      endpoint: choice.endpoint,
      forcePathStyle: choice.forcePathStyle,
      // Since early 2025 the SDK adds CRC checksums to every upload (aws-chunked bodies with
      // trailing checksums) and validates them on download. MinIO before that date, older Ceph,
      // GCS's S3 API and several others refuse or mangle such requests; WHEN_REQUIRED keeps
      // them to the operations S3 itself requires them for (DeleteObjects).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // The SDK's default, stated: a retry for a passing blip fits within the deadline.
      maxAttempts: 3,
      requestHandler: {
        // A host that drops packets is noticed after 3 s instead of the OS's minutes, and a
        // server that accepts but never answers after 10 s, leaving the deadline room to retry.
        connectionTimeout: 3_000,
        requestTimeout: 10_000,
        throwOnRequestTimeout: true,
        // A streamed read that stalls this long fails instead of holding its reader forever.
        socketTimeout: 30_000,
      },
    })
  }

  /** One SDK call under the deadline; the SDK stops its retries when the signal aborts. */
  #bounded<T>(what: string, call: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    return withDeadline(`S3: ${what}`, this.deadlineMs, call)
  }

  async put(key: string, body: Uint8Array | string, options?: PutOptions): Promise<void> {
    assertValidBlobKey(key)
    await this.#bounded('put', (abortSignal) =>
      this.#client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: toBody(body),
          ContentType: options?.contentType,
        }),
        { abortSignal },
      ),
    )
  }

  /** The object's response, or null when there is none. */
  async #fetch(key: string, abortSignal: AbortSignal): Promise<GetObjectCommandOutput | null> {
    try {
      return await this.#client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal })
    } catch (error) {
      if (isMissing(error)) return null
      throw error
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    assertValidBlobKey(key)
    // The body is read within the deadline too: a server that stalls mid-object is an outage.
    return this.#bounded('get', async (abortSignal) => {
      const object = await this.#fetch(key, abortSignal)
      if (!object) return null
      if (!object.Body) throw new Error('S3: GetObject answered without a body')
      return object.Body.transformToByteArray()
    })
  }

  async stream(key: string): Promise<ReadableStream<Uint8Array> | null> {
    assertValidBlobKey(key)
    // The deadline covers the answer's arrival; the body then streams at its reader's pace.
    const object = await this.#bounded('get', (abortSignal) => this.#fetch(key, abortSignal))
    if (!object) return null
    if (!object.Body) throw new Error('S3: GetObject answered without a body')
    return object.Body.transformToWebStream() as ReadableStream<Uint8Array>
  }

  async delete(keys: string[]): Promise<void> {
    // Validate everything first so that a hostile key in the batch deletes nothing.
    for (const key of keys) assertValidBlobKey(key)
    for (let i = 0; i < keys.length; i += this.#pageSize) {
      const batch = keys.slice(i, i + this.#pageSize)
      // Quiet: the answer lists only failures. Unknown keys are not failures in S3.
      const answer = await this.#bounded('delete', (abortSignal) =>
        this.#client.send(
          withContentMd5(
            new DeleteObjectsCommand({
              Bucket: this.bucket,
              Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
            }),
          ),
          { abortSignal },
        ),
      )
      // A 200 answer can still carry per-key failures (AccessDenied, InternalError, ...)
      const failed = answer.Errors ?? []
      if (failed.length > 0) {
        const first = failed[0]
        const reason = [first?.Code, first?.Message].filter(Boolean).join(': ') || 'no reason given'
        throw new Error(
          `S3: could not delete ${failed.length} of ${batch.length} objects (${first?.Key}: ${reason})`,
        )
      }
    }
  }

  async list(prefix: string): Promise<string[]> {
    assertValidBlobPrefix(prefix)
    const keys: string[] = []
    const seen = new Set<string>()
    let token: string | undefined
    do {
      const page = await this.#bounded('list', (abortSignal) =>
        this.#client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: prefix || undefined,
            ContinuationToken: token,
            MaxKeys: this.#pageSize,
          }),
          { abortSignal },
        ),
      )
      // Skips objects this store cannot have written (a shared bucket): one such key in a
      // retention batch would otherwise make every delete of that batch refuse it.
      for (const object of page.Contents ?? [])
        if (object.Key && isValidBlobKey(object.Key)) keys.push(object.Key)
      // A page claiming more without a token would otherwise loop forever on the first page
      token = page.IsTruncated ? page.NextContinuationToken : undefined
      // ... and one handing back a token it gave before would loop forever over the same pages.
      if (token !== undefined) {
        if (seen.has(token)) throw new Error('S3: the listing repeated a continuation token')
        seen.add(token)
      }
    } while (token)
    return keys.sort()
  }
}
