/** Path matching for `{name}` templates. */
import type { Endpoint } from "./endpoint.ts"

/** A compiled route. */
export interface Route<R> {
  readonly endpoint: Endpoint<any, R>
  readonly pattern: RegExp
  readonly names: ReadonlyArray<string>
}

/** Compiles endpoint paths to anchored patterns; parameters match one path segment. */
export const compileRoutes = <R>(endpoints: ReadonlyArray<Endpoint<any, R>>): ReadonlyArray<Route<R>> =>
  endpoints.map((endpoint) => {
    const names: Array<string> = []
    const source = endpoint.path
      .split("/")
      .map((segment) => {
        const m = /^\{(\w+)\}$/.exec(segment)
        if (m) {
          names.push(m[1]!)
          return "([^/]+)"
        }
        return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      })
      .join("/")
    return { endpoint, pattern: new RegExp(`^${source}$`), names }
  })

/** The route for a method and path, or why there is none. */
export const matchRoute = <R>(
  routes: ReadonlyArray<Route<R>>,
  method: string,
  path: string,
):
  | { readonly _tag: "Found"; readonly route: Route<R>; readonly params: Record<string, string> }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "MethodNotAllowed" } => {
  let pathKnown = false
  for (const route of routes) {
    const m = route.pattern.exec(path)
    if (m === null) continue
    pathKnown = true
    if (route.endpoint.method !== method && !(method === "HEAD" && route.endpoint.method === "GET")) continue
    const params: Record<string, string> = {}
    route.names.forEach((name, i) => {
      params[name] = decodeURIComponent(m[i + 1]!)
    })
    return { _tag: "Found", route, params }
  }
  return pathKnown ? { _tag: "MethodNotAllowed" } : { _tag: "NotFound" }
}
