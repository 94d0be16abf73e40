/** Test support: axe-core (npm) run inside a page, answering its serious and critical violations. */
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import type { Page } from "playwright-core"

let source: Promise<string> | undefined

/** The serious and critical accessibility violations axe-core finds on the page as it is now (WCAG 2.x A and AA rules). */
export const seriousViolations = async (page: Page): Promise<ReadonlyArray<string>> => {
  source ??= readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")
  // evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not govern
  await page.evaluate(await source)
  const found = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run: (context: unknown, options: unknown) => Promise<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown }> }> }>
        }
      }
    ).axe
    const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } })
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => JSON.stringify(n.target)) }))
  })
  return found.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.impact} ${v.id}: ${v.targets.join(", ")}`)
}
