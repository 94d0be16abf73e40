/** The shape of one module's storage conformance suite, and what its tests are written with. */
import { expect, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { UniqueViolation } from "@signet/core"

/** What a module's suite declares its tests with. */
export interface ConformanceKit<R> {
  /** one test; it runs on a fresh layer, so tests never see each other's rows */
  readonly test: <A, E>(title: string, body: () => Effect.Effect<A, E, R>) => void
  /** the `UniqueViolation` `effect` fails with (the test fails if it does not) */
  readonly uniqueViolation: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<UniqueViolation, A>
}

/** One module's suite: the tags its tests use and the tests, declared in `describe` blocks. */
export interface ConformanceSuite<R> {
  /** the module's name */
  readonly name: string
  /** declares the tests (called inside the adapter's `storage: <name>` block) */
  readonly declare: (kit: ConformanceKit<R>) => void
}

/** The tags a suite needs. */
export type TagsOf<S> = S extends ConformanceSuite<infer R> ? R : never

/** Defines a module's suite over the tags `R` its tests use. */
export const conformanceSuite =
  <R>() =>
  (name: string, declare: (kit: ConformanceKit<R>) => void): ConformanceSuite<R> => ({ name, declare })

/** The kit over layers that `makeLayer` builds, one per test. */
export const conformanceKit = <R>(makeLayer: () => Layer.Layer<R, unknown>): ConformanceKit<R> => ({
  test: (title, body) => it.effect(title, () => Effect.provide(body(), makeLayer())),
  uniqueViolation: (effect) =>
    Effect.flip(effect).pipe(
      Effect.map((e) => {
        expect(e).toBeInstanceOf(UniqueViolation)
        return e as unknown as UniqueViolation
      }),
    ),
})
