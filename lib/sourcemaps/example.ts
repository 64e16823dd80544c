/** The CI step shown with a new upload key and in docs/source-maps.md: one curl, one map. */
export function sourcemapUploadExample(baseUrl: string, key: string): string {
  return [
    `curl -fsS -H "Authorization: Bearer ${key}" -F release=$GIT_SHA \\`,
    '  -F "file=@dist/app.js;filename=assets/app.js" \\',
    '  -F "file=@dist/app.js.map;filename=assets/app.js.map" \\',
    `  ${baseUrl}/api/v1/sourcemaps`,
  ].join('\n')
}
