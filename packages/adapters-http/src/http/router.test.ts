import { Effect, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { endpoint, type Endpoint } from "./endpoint.ts"
import { compileRoutes, matchRoute } from "./router.ts"

const at = (method: Endpoint["method"], path: string): Endpoint<any, never> =>
  endpoint({ method, path, tag: "Test", auth: "none", summary: path, response: Schema.Struct({}), handle: () => Effect.succeed({}) })

// Shadowing pairs in both orders, a parameter as the first segment, the root, and lengths that differ by one.
const endpoints = [
  at("GET", "/"),
  at("GET", "/a/{x}"),
  at("GET", "/a/b"),
  at("POST", "/a/b"),
  at("GET", "/{x}/b"),
  at("DELETE", "/c/{x}"),
  at("GET", "/{x}/{y}/z"),
  at("GET", "/a/b/z"),
  at("PUT", "/v2/files/{id}"),
  at("GET", "/v2/files/{id}/download"),
  at("GET", "/v2/sign/batch/{id}"),
]

const paths = [
  "/",
  "",
  "/a",
  "/a/b",
  "/a/c",
  "/q/b",
  "/c/d",
  "/c/d/e",
  "/a/b/z",
  "/q/r/z",
  "/v2/files/1",
  "/v2/files/1/download",
  "/v2/files//download",
  "/v2/sign/batch/9",
  "/v2/sign/batch/9/auth",
  "/v2/files/%E0",
  "no-slash",
  "/a/b/",
]

describe("the router", () => {
  // A plain array of routes is tried in order, one pattern after another: the reference.
  it("answers as trying every route in declaration order would, for every method and path", () => {
    const compiled = compileRoutes(endpoints)
    const everyRoute = [...compiled]
    const answer = (found: ReturnType<typeof matchRoute>) =>
      found._tag === "Found" ? `${found.route.endpoint.method} ${found.route.endpoint.path} ${JSON.stringify(found.params)}` : found._tag
    for (const method of ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"]) {
      for (const path of paths) {
        let expected: string
        try {
          expected = answer(matchRoute(everyRoute, method, path))
        } catch (e) {
          expected = `throws ${String(e)}`
        }
        let actual: string
        try {
          actual = answer(matchRoute(compiled, method, path))
        } catch (e) {
          actual = `throws ${String(e)}`
        }
        expect(`${method} ${path}: ${actual}`).toBe(`${method} ${path}: ${expected}`)
      }
    }
  })

  it("answers as the reference for any path made of the templates' segments (and others), with any method", () => {
    const compiled = compileRoutes(endpoints)
    const everyRoute = [...compiled]
    const outcome = (routes: ReadonlyArray<ReturnType<typeof compileRoutes>[number]>, method: string, path: string) => {
      try {
        const found = matchRoute(routes, method, path)
        return found._tag === "Found" ? `${found.route.endpoint.method} ${found.route.endpoint.path} ${JSON.stringify(found.params)}` : found._tag
      } catch (e) {
        return `throws ${String(e)}`
      }
    }
    const segment = fc.constantFrom("", "a", "b", "c", "q", "z", "v2", "files", "sign", "batch", "download", "auth", "1", "%E0", "%20x")
    fc.assert(
      fc.property(fc.constantFrom("GET", "HEAD", "POST", "PUT", "DELETE"), fc.boolean(), fc.array(segment, { maxLength: 6 }), (method, rooted, parts) => {
        const path = `${rooted ? "/" : ""}${parts.join("/")}`
        expect(outcome(compiled, method, path)).toBe(outcome(everyRoute, method, path))
      }),
      { numRuns: 2000 },
    )
  })

  it("takes the first declared match, a known path with another method is 405, an unknown one 404", () => {
    const routes = compileRoutes(endpoints)
    expect(matchRoute(routes, "GET", "/a/b")).toMatchObject({ _tag: "Found", route: { endpoint: { path: "/a/{x}" } }, params: { x: "b" } })
    expect(matchRoute(routes, "POST", "/a/b")).toMatchObject({ _tag: "Found", route: { endpoint: { method: "POST", path: "/a/b" } } })
    expect(matchRoute(routes, "GET", "/q/b")).toMatchObject({ _tag: "Found", route: { endpoint: { path: "/{x}/b" } }, params: { x: "q" } })
    expect(matchRoute(routes, "HEAD", "/")).toMatchObject({ _tag: "Found", route: { endpoint: { path: "/" } } })
    expect(matchRoute(routes, "GET", "/c/d")).toEqual({ _tag: "MethodNotAllowed" })
    expect(matchRoute(routes, "GET", "/v2/sign/batch/9/auth")).toEqual({ _tag: "NotFound" })
    expect(() => matchRoute(routes, "PUT", "/v2/files/%E0")).toThrow(URIError)
  })
})
