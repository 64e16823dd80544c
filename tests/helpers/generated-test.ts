import path from 'node:path'
import ts from 'typescript'

const ROOT = path.resolve(import.meta.dirname, '../..')

/**
 * Type-checks generated @playwright/test files against the installed Playwright types, in
 * memory: a literal that escaped its quotes, a comment that closed early or a role Playwright
 * does not know shows up as a diagnostic. Returns one message per problem, file name first.
 */
export function typeCheckTests(files: Record<string, string>): string[] {
  const names = Object.keys(files).map((name) => path.join(ROOT, '.generated', name))
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [path.join(ROOT, 'node_modules/@types')],
  }
  const host = ts.createCompilerHost(options)
  const read = host.readFile.bind(host)
  const exists = host.fileExists.bind(host)
  const byPath = new Map(names.map((name, i) => [name, Object.values(files)[i]!]))
  host.readFile = (file) => byPath.get(file) ?? read(file)
  host.fileExists = (file) => byPath.has(file) || exists(file)
  const program = ts.createProgram(names, options, host)
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    )
}

/** Syntax only (no types): what ts.createSourceFile reports for one file. */
export function syntaxErrors(code: string): string[] {
  const result = ts.transpileModule(code, {
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.ESNext },
  })
  return (result.diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
}
