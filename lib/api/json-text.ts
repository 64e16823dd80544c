/**
 * An answer that is JSON text already (written by the database, lib/issues/issue-json.ts):
 * the Data API wrapper sends it as is instead of JSON.stringify-ing a value. Handlers build
 * it only from parts that are valid JSON, so the body is the same bytes either way.
 */
export class JsonText {
  constructor(readonly text: string) {}
}
