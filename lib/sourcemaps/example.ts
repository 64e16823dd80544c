/**
 * The CI step shown with a new upload key, as docs/source-maps.md documents it ("From CI with
 * curl"): every .js and .map file under dist/, each named by its path under dist/, in one
 * request. Bash, since the file list is an array.
 */
export function sourcemapUploadExample(baseUrl: string, key: string): string {
  return [
    `files=(); while IFS= read -r -d '' f; do files+=(-F "file=@$f;filename=\${f#dist/}"); done \\`,
    `  < <(find dist \\( -name '*.js' -o -name '*.map' \\) -print0)`,
    `curl -fsS -H "Authorization: Bearer ${key}" -F "release=$GIT_SHA" "\${files[@]}" \\`,
    `  ${baseUrl}/api/v1/sourcemaps`,
  ].join('\n')
}
