/**
 * The architecture check (`pnpm check:architecture`, run by `.ci/run` before the tests). It reads
 * every import with the TypeScript compiler and fails on:
 *   (a) file-level import cycles in any package (type-only imports count: a cycle of types is still a knot);
 *   (b) core capability rules: the kernel (`kernel/`, `ports/`) imports no capability, a capability imports
 *       no composition file (`index.ts`, `errors/catalogue.ts`, `housekeeping.ts`), and the graph of capability
 *       folders is acyclic once edges "through declared ports" are set aside (see CONTRACT_FILES);
 *   (c) purity of packages/core/src outside tests: no `node:` import, no `process`, no `Date.now()`,
 *       no argument-less `new Date()`, no `Math.random()`;
 *   (d) package boundaries: each package imports only the @signet packages its row of PACKAGE_RULES allows
 *       and declares them in package.json (`dependencies` for production code), nothing outside tests imports
 *       @signet/testkit, no production file imports another package by relative path, a subpath import names a
 *       declared export, and examples/ import Signet only by package name.
 * docs/architecture.md ("Checked rules") says the same in prose.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import path from "node:path"
import ts from "typescript"

// `--root <dir>` checks another tree (the script's own tests run it on small fixture trees).
const rootArgument = process.argv.indexOf("--root")
const ROOT =
  rootArgument > 0 && process.argv[rootArgument + 1]
    ? path.resolve(process.argv[rootArgument + 1]!)
    : path.resolve(path.dirname(new URL(import.meta.url).pathname), "..")
const CORE_SRC = path.join(ROOT, "packages/core/src")

/**
 * Which @signet packages a package's production code may import. Tests and tooling (see isTest, isTooling)
 * may also import the testkit and the packages in `tests`. A package without a row fails the check, so a new
 * package states its place here.
 */
const PACKAGE_RULES: Record<string, { readonly production: ReadonlyArray<string>; readonly tests?: ReadonlyArray<string> }> = {
  core: { production: [] },
  "adapters-crypto": { production: ["core"] },
  "adapters-sql": { production: ["core"] },
  "adapters-sqlite": { production: ["core", "adapters-sql"], tests: ["testkit"] },
  "adapters-postgres": { production: ["core", "adapters-sql"], tests: ["testkit", "adapters-sqlite"] },
  // The web handler composes the engine from core, the crypto defaults (random, key store, vault) and the
  // storage services' type; the storage choice, local KYC and the binaries belong to the composition root.
  "adapters-http": { production: ["core", "adapters-crypto", "adapters-sql"], tests: ["testkit", "adapters-sqlite", "adapters-postgres", "kyc-local"] },
  "kyc-local": { production: ["core"], tests: ["testkit"] },
  // Storage in memory for tests and embedders' tests; its own tests compare it with the SQL adapters.
  "adapters-memory": { production: ["core"], tests: ["adapters-sql", "adapters-sqlite"] },
  // Test tooling for embedders: a software passkey, fixtures, a client; never imported by production code.
  testkit: { production: ["core", "adapters-crypto", "adapters-sql", "adapters-memory"] },
  // The composition root wires everything a server runs.
  server: {
    production: ["core", "adapters-crypto", "adapters-sql", "adapters-sqlite", "adapters-postgres", "adapters-http", "kyc-local"],
    tests: ["testkit", "client"],
  },
  // The relying parties' client: nothing of the engine at run time; its tests run its flows against a running engine.
  client: { production: [], tests: ["testkit", "core", "adapters-http"] },
}

/**
 * Known breaches on this branch that another branch of issue 14 removes (the composition root moves to
 * @signet/server, kyc-local's fixtures to the testkit). They are reported as warnings, and a waiver whose
 * file no longer exists is reported as stale: delete it.
 */
const WAIVERS: ReadonlyArray<{ readonly file: string; readonly imports: string; readonly why: string }> = []

/** Core folders that are not capabilities: the kernel every capability may use, and the composition. */
const KERNEL = new Set(["kernel", "ports"])
const COMPOSITION = new Set(["index.ts", "housekeeping.ts", "errors/catalogue.ts"])

/**
 * "Through declared ports": a capability's contract files are its `ports.ts` (repository and service tags),
 * `model.ts` (the data those ports carry), `errors.ts` (its catalogued errors), `contract.ts` (its request and
 * response Schemas) and `index.ts` (its public surface). Another capability may import them in any direction, and any capability may import another's
 * files type-only (types vanish at run time). Value imports of any other file are edges of the capability
 * graph, which must be acyclic. Contract files themselves may import only the kernel, other contract files,
 * and anything type-only, so a port never drags an implementation in.
 */
const CONTRACT_FILES = new Set(["ports.ts", "model.ts", "errors.ts", "contract.ts", "index.ts"])

/** Tests and their helpers: `*.test.ts`, `test-support/`, `test-layers.ts`. */
const isTest = (rel: string): boolean => /\.test\.ts$/.test(rel) || /(^|\/)test-support\//.test(rel) || /(^|\/)test-layers\.ts$/.test(rel)
/** Development tooling of a package (benchmarks, calibration and evaluation scripts): held to the rules of tests. */
const isTooling = (rel: string): boolean => /^packages\/[^/]+\/(bench|calibration|eval)\//.test(rel)

interface Import {
  readonly from: string
  readonly specifier: string
  /** resolved file for relative specifiers */
  readonly target: string | null
  readonly typeOnly: boolean
  readonly line: number
}

const problems: Array<string> = []
const warnings: Array<string> = []
const rel = (file: string): string => path.relative(ROOT, file)
const fail = (file: string, line: number, message: string) => problems.push(`${rel(file)}:${line}: ${message}`)

const walk = (dir: string, out: Array<string>, pattern = /\.(ts|mts|tsx)$/): Array<string> => {
  if (!existsSync(dir)) return out
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry === "dist" || entry.startsWith(".")) continue
    const full = path.join(dir, entry)
    if (statSync(full).isDirectory()) walk(full, out, pattern)
    else if (pattern.test(entry) && !entry.endsWith(".d.ts")) out.push(full)
  }
  return out
}

const packagesDir = path.join(ROOT, "packages")
const packageNames = readdirSync(packagesDir).filter((n) => existsSync(path.join(packagesDir, n, "package.json")))
const examplesDir = path.join(ROOT, "examples")
const files = [
  ...packageNames.flatMap((n) => walk(path.join(packagesDir, n), [])),
  // examples are hosts a user writes, in TypeScript or plain JavaScript
  ...walk(examplesDir, [], /\.(ts|mts|tsx|js|mjs|cjs)$/),
  ...walk(path.join(ROOT, "scripts"), []),
]

const resolveRelative = (from: string, specifier: string): string | null => {
  const base = path.resolve(path.dirname(from), specifier)
  const candidates = [base, base.replace(/\.js$/, ".ts"), `${base}.ts`, path.join(base, "index.ts")]
  return candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? null
}

const lineOf = (sf: ts.SourceFile, node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1

const sources = new Map<string, ts.SourceFile>()
const importsOf = new Map<string, Array<Import>>()
for (const file of files) {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
  sources.set(file, sf)
  const found: Array<Import> = []
  const add = (node: ts.Node, specifier: string, typeOnly: boolean) =>
    found.push({ from: file, specifier, typeOnly, line: lineOf(sf, node), target: specifier.startsWith(".") ? resolveRelative(file, specifier) : null })
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined
      const typeOnly = !!clause && (clause.isTypeOnly || (!clause.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)))
      add(node, node.moduleSpecifier.text, typeOnly)
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined
      add(node, node.moduleSpecifier.text, node.isTypeOnly || (!!named && named.length > 0 && named.every((e) => e.isTypeOnly)))
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node, node.moduleReference.expression.text, node.isTypeOnly)
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      add(node, node.arguments[0].text, false)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node, node.argument.literal.text, true)
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  importsOf.set(file, found)
}

// ---------------------------------------------------------------- (a) file-level cycles

const cycles = (nodes: ReadonlyArray<string>, edges: (n: string) => ReadonlyArray<string>): Array<Array<string>> => {
  // Tarjan's strongly connected components, iterative so a deep graph cannot overflow the stack.
  let index = 0
  const idx = new Map<string, number>(),
    low = new Map<string, number>(),
    onStack = new Set<string>(),
    stack: Array<string> = []
  const result: Array<Array<string>> = []
  for (const start of nodes) {
    if (idx.has(start)) continue
    const work: Array<{ node: string; next: number }> = [{ node: start, next: 0 }]
    idx.set(start, index)
    low.set(start, index++)
    stack.push(start)
    onStack.add(start)
    while (work.length > 0) {
      const frame = work[work.length - 1]!
      const out = edges(frame.node)
      if (frame.next < out.length) {
        const m = out[frame.next++]!
        if (!idx.has(m)) {
          idx.set(m, index)
          low.set(m, index++)
          stack.push(m)
          onStack.add(m)
          work.push({ node: m, next: 0 })
        } else if (onStack.has(m)) low.set(frame.node, Math.min(low.get(frame.node)!, idx.get(m)!))
      } else {
        work.pop()
        if (work.length > 0) {
          const parent = work[work.length - 1]!.node
          low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!))
        }
        if (low.get(frame.node) === idx.get(frame.node)) {
          const scc: Array<string> = []
          let m: string
          do {
            m = stack.pop()!
            onStack.delete(m)
            scc.push(m)
          } while (m !== frame.node)
          if (scc.length > 1 || out.includes(frame.node)) result.push(scc)
        }
      }
    }
  }
  return result
}

/** One concrete loop inside a strongly connected component, for the message. */
const loopIn = (scc: ReadonlyArray<string>, edges: (n: string) => ReadonlyArray<string>): Array<string> => {
  const inScc = new Set(scc)
  const start = [...scc].sort()[0]!
  const previous = new Map<string, string>()
  const queue = [start]
  while (queue.length > 0) {
    const n = queue.shift()!
    for (const m of edges(n)) {
      if (!inScc.has(m)) continue
      if (m === start) {
        const loop = [n]
        while (loop[0] !== start) loop.unshift(previous.get(loop[0]!)!)
        return [...loop, start]
      }
      if (!previous.has(m)) {
        previous.set(m, n)
        queue.push(m)
      }
    }
  }
  return [start, start]
}

const fileEdges = new Map<string, Array<string>>()
for (const [file, imports] of importsOf) fileEdges.set(file, [...new Set(imports.flatMap((i) => (i.target ? [i.target] : [])))])
for (const scc of cycles(files, (f) => fileEdges.get(f) ?? [])) {
  const loop = loopIn(scc, (f) => fileEdges.get(f) ?? [])
  problems.push(`import cycle: ${loop.map(rel).join(" -> ")}${scc.length > loop.length - 1 ? ` (${scc.length} files knotted)` : ""}`)
}

// ---------------------------------------------------------------- (b) core capabilities

const corePath = (file: string): string | null => (file.startsWith(CORE_SRC + path.sep) ? path.relative(CORE_SRC, file).split(path.sep).join("/") : null)
/** The capability folder of a core file, "kernel" for the kernel, or null for composition files. */
const areaOf = (p: string): string | null => {
  if (COMPOSITION.has(p)) return null
  const top = p.split("/")[0]!
  if (!p.includes("/")) return null
  return KERNEL.has(top) ? "kernel" : top
}
const isContract = (p: string): boolean => p.split("/").length === 2 && CONTRACT_FILES.has(p.split("/")[1]!)

const capabilityEdges = new Map<string, Map<string, Import>>()
const allCapabilityImports: Array<{ readonly from: string; readonly to: string; readonly i: Import }> = []
for (const [file, imports] of importsOf) {
  const p = corePath(file)
  if (p === null || isTest(p)) continue
  const area = areaOf(p)
  if (area === null) continue
  for (const i of imports) {
    if (!i.target) continue
    const q = corePath(i.target)
    if (q === null) continue
    if (isTest(q)) {
      fail(file, i.line, `production code imports test code ${q}`)
      continue
    }
    const targetArea = areaOf(q)
    // The composition may be named type-only (a field's catalogued error); a value import would knot the modules.
    if (targetArea === null) {
      if (!i.typeOnly) fail(file, i.line, `${area} imports the composition file ${q}; import the module it comes from`)
      continue
    }
    if (targetArea === area) continue
    if (area === "kernel") {
      fail(file, i.line, `the kernel imports the ${targetArea} capability (${q}); the kernel depends on no capability`)
      continue
    }
    if (targetArea === "kernel") continue
    if (isContract(p) && !i.typeOnly && !isContract(q)) {
      fail(
        file,
        i.line,
        `contract file ${p} imports ${q} as a value; a capability's ports, model and errors import only the kernel and other contracts (or types)`,
      )
      continue
    }
    if (i.typeOnly || isContract(q)) continue
    const edges = capabilityEdges.get(area) ?? new Map<string, Import>()
    if (!edges.has(targetArea)) edges.set(targetArea, i)
    capabilityEdges.set(area, edges)
    allCapabilityImports.push({ from: area, to: targetArea, i })
  }
}
const capabilities = [...capabilityEdges.keys()]
// `--graph` prints the capability graph (value imports outside declared ports), for docs and for untangling.
if (process.argv.includes("--graph")) {
  const lines = allCapabilityImports.map(({ from, to, i }) => `${from} -> ${to}  ${rel(i.from)}:${i.line} ${i.specifier}`)
  for (const line of [...new Set(lines)].sort()) console.log(line)
}
for (const scc of cycles(capabilities, (c) => [...(capabilityEdges.get(c)?.keys() ?? [])])) {
  const loop = loopIn(scc, (c) => [...(capabilityEdges.get(c)?.keys() ?? [])])
  const via = loop.slice(0, -1).map((c, k) => {
    const i = capabilityEdges.get(c)!.get(loop[k + 1]!)!
    return `${c} -> ${loop[k + 1]} (${rel(i.from)}:${i.line} imports ${i.specifier})`
  })
  problems.push(`capability cycle outside declared ports: ${via.join("; ")}`)
}

// ---------------------------------------------------------------- (c) purity of the core

for (const [file, sf] of sources) {
  const p = corePath(file)
  if (p === null || isTest(p)) continue
  for (const i of importsOf.get(file) ?? [])
    if (i.specifier.startsWith("node:")) fail(file, i.line, `the core imports ${i.specifier}: the core does no I/O (use a port)`)
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && node.text === "process") {
      const parent = node.parent
      const isName =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        (ts.isPropertyAssignment(parent) && parent.name === node) ||
        (ts.isPropertySignature(parent) && parent.name === node) ||
        (ts.isPropertyDeclaration(parent) && parent.name === node) ||
        (ts.isMethodDeclaration(parent) && parent.name === node) ||
        (ts.isBindingElement(parent) && parent.propertyName === node)
      if (!isName) fail(file, lineOf(sf, node), "the core reads `process`: take settings from EngineConfig")
    }
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && ts.isPropertyAccessExpression(node.expression) === false) {
      const call = `${node.expression.text}.${node.name.text}`
      if ((call === "Date.now" || call === "Math.random") && ts.isCallExpression(node.parent) && node.parent.expression === node) {
        fail(file, lineOf(sf, node), `the core calls ${call}(): use ${call === "Date.now" ? "Clock" : "the Random port"}`)
      }
      if (call === "globalThis.process") fail(file, lineOf(sf, node), "the core reads `process`: take settings from EngineConfig")
    }
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "Date" && (node.arguments?.length ?? 0) === 0) {
      fail(file, lineOf(sf, node), "the core calls new Date() without an argument: read the time from Clock")
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
}

// ---------------------------------------------------------------- (d) package boundaries

interface Manifest {
  readonly dependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
  readonly exports?: unknown
}
const manifests = new Map<string, Manifest>()
for (const n of packageNames) manifests.set(n, JSON.parse(readFileSync(path.join(packagesDir, n, "package.json"), "utf8")) as Manifest)
const exportKeys = (m: Manifest | undefined): ReadonlyArray<string> =>
  m?.exports === undefined ? ["."] : typeof m.exports === "string" ? ["."] : Object.keys(m.exports as object).filter((k) => k.startsWith("."))

const usedWaivers = new Set<number>()
const waived = (file: string, packageName: string): boolean => {
  const k = WAIVERS.findIndex((w) => w.file === rel(file) && w.imports === packageName)
  if (k < 0) return false
  usedWaivers.add(k)
  warnings.push(`${rel(file)} imports ${packageName} (waived: ${WAIVERS[k]!.why})`)
  return true
}

for (const [file, imports] of importsOf) {
  const r = rel(file)
  const [top, owner] = r.split("/")
  const test = isTest(r) || isTooling(r)
  for (const i of imports) {
    if (i.specifier.startsWith(".")) {
      if (i.target === null) {
        fail(file, i.line, `cannot resolve ${i.specifier}`)
        continue
      }
      const t = rel(i.target)
      const [tTop, tOwner] = t.split("/")
      // Tests and tooling may reach into another package's sources by path: they are not shipped, and it is how
      // the tests of a package use one that depends on it (core's tests use the testkit, adapters-http's tests
      // the server's composition) without a workspace dependency cycle. Production code and examples never do.
      const intoPackage = test && top === "packages" && tTop === "packages" && t.split("/")[2] === "src"
      if (top !== "scripts" && (tTop !== top || tOwner !== owner) && !intoPackage)
        fail(file, i.line, `relative import ${i.specifier} leaves ${top}/${owner}; import the package by name`)
      continue
    }
    const m = /^@signet\/([^/]+)(\/.*)?$/.exec(i.specifier)
    if (!m) continue
    const [, target, sub] = m as unknown as [string, string, string | undefined]
    const targetManifest = manifests.get(target)
    if (!targetManifest) {
      fail(file, i.line, `${i.specifier}: there is no package @signet/${target}`)
      continue
    }
    if (!exportKeys(targetManifest).includes(`.${sub ?? ""}`))
      fail(file, i.line, `${i.specifier} is not an export of @signet/${target} (exports: ${exportKeys(targetManifest).join(", ")})`)
    if (top === "examples" || top === "scripts") continue
    if (target === owner) {
      fail(file, i.line, `@signet/${owner} imports itself by name`)
      continue
    }
    const rules = PACKAGE_RULES[owner!]
    if (!rules) {
      fail(file, i.line, `no boundary rule for packages/${owner}: add its row to PACKAGE_RULES in scripts/check-architecture.ts`)
      continue
    }
    const own = manifests.get(owner!)!
    if (target === "testkit" && !test) {
      if (!waived(file, i.specifier.split("/").slice(0, 2).join("/"))) fail(file, i.line, "production code imports @signet/testkit")
      continue
    }
    // Any package's tests may use the testkit (declared as a devDependency), besides their row's `tests`.
    const allowed = test ? [...rules.production, ...(rules.tests ?? []), "testkit"] : rules.production
    if (!allowed.includes(target)) {
      if (!waived(file, `@signet/${target}`))
        fail(file, i.line, `@signet/${owner} ${test ? "tests" : "production code"} may not import @signet/${target} (allowed: ${allowed.join(", ") || "none"})`)
      continue
    }
    const declared = test ? { ...own.dependencies, ...own.devDependencies } : { ...own.dependencies }
    if (!(`@signet/${target}` in declared))
      fail(file, i.line, `@signet/${target} is imported but not in packages/${owner}/package.json ${test ? "dependencies or devDependencies" : "dependencies"}`)
  }
}

WAIVERS.forEach((w, k) => {
  if (!usedWaivers.has(k)) warnings.push(`stale waiver (delete it from scripts/check-architecture.ts): ${w.file} -> ${w.imports}`)
})

for (const w of warnings) console.warn(`warning: ${w}`)
if (problems.length > 0) {
  for (const p of problems) console.error(p)
  console.error(`\narchitecture check failed: ${problems.length} problem(s) in ${files.length} files`)
  process.exit(1)
}
console.log(`architecture check passed: ${files.length} files, ${capabilities.length} core capabilities, no cycles, core pure, boundaries kept`)
