import { createHash } from 'node:crypto'

/** Every map of an organization lives under this folder: listed and deleted only with it. */
export function sourcemapFolder(organizationId: string): string {
  return `sourcemaps/${organizationId}/`
}

/**
 * Content-addressed: the same map uploaded for two releases is stored once, and a cache keyed
 * by the key never goes stale. Under the organization's folder, so no organization's upload
 * can ever name another's object.
 */
export function sourcemapBlobKey(organizationId: string, bytes: Uint8Array): string {
  return `${sourcemapFolder(organizationId)}${createHash('sha256').update(bytes).digest('hex')}.map`
}
