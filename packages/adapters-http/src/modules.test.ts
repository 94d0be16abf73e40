import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import type { Endpoint } from "./http/endpoint.ts"
import { compileRoutes, matchRoute } from "./http/router.ts"
import type { HttpModule } from "./module.ts"
import { httpModules } from "./modules.ts"
import { health, openApi } from "./system/endpoints.ts"

const modules: ReadonlyArray<HttpModule<{ readonly kycProviders: null; readonly adminToken: string }, unknown>> = httpModules
const all: ReadonlyArray<Endpoint<any, unknown>> = [
  health(Effect.void),
  openApi(() => []),
  ...modules.flatMap((module) => module.endpoints({ kycProviders: null, adminToken: "t" })),
  ...modules.flatMap((module) => module.pages ?? []),
]

describe("the HTTP module list", () => {
  it("modules have distinct names", () => {
    const names = httpModules.map((m) => m.name)
    expect(new Set(names).size).toBe(names.length)
  })

  // The router takes the first match: if no endpoint can shadow another, the modules' order cannot change what answers.
  it("every endpoint is reached by its own path, whatever comes before it", () => {
    const routes = compileRoutes(all)
    const reached = all.map((endpoint) => {
      const path = endpoint.path.replace(/\{\w+\}/g, "some-value")
      const found = matchRoute(routes, endpoint.method, path)
      return `${endpoint.method} ${endpoint.path} -> ${found._tag === "Found" ? `${found.route.endpoint.method} ${found.route.endpoint.path}` : found._tag}`
    })
    expect(reached).toEqual(all.map((endpoint) => `${endpoint.method} ${endpoint.path} -> ${endpoint.method} ${endpoint.path}`))
  })

  it("no two endpoints share a method and path", () => {
    const keys = all.map((endpoint) => `${endpoint.method} ${endpoint.path}`)
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([])
  })
})
