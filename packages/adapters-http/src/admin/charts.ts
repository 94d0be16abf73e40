/**
 * Server-drawn SVG charts for the console (no charting library, nothing from a CDN): bars with
 * their value written above each, a title for screen readers, and only text the server escapes.
 */
import { escapeHtml } from "../pages/pages.ts"

/** One bar: its label (a day, a status) and its value. */
export interface Bar {
  readonly label: string
  readonly value: number
}

const WIDTH = 720
const HEIGHT = 220
const PAD = { top: 24, right: 8, bottom: 36, left: 36 }

/** A bar chart as a standalone SVG document (served as an image, so it runs no script). */
export const barChart = (title: string, bars: ReadonlyArray<Bar>, colour = "#0969da"): string => {
  const max = Math.max(1, ...bars.map((b) => b.value))
  const plotW = WIDTH - PAD.left - PAD.right
  const plotH = HEIGHT - PAD.top - PAD.bottom
  const step = bars.length === 0 ? plotW : plotW / bars.length
  const barW = Math.max(2, step * 0.7)
  // a label every few bars when there are many (30 days): the value table beside the chart has them all
  const every = Math.max(1, Math.ceil(bars.length / 10))
  const parts = bars.map((b, i) => {
    const h = (b.value / max) * plotH
    const x = PAD.left + i * step + (step - barW) / 2
    const y = PAD.top + plotH - h
    const label =
      i % every === 0
        ? `<text x="${(x + barW / 2).toFixed(1)}" y="${HEIGHT - PAD.bottom + 14}" text-anchor="middle" font-size="10">${escapeHtml(b.label)}</text>`
        : ""
    const value = b.value > 0 ? `<text x="${(x + barW / 2).toFixed(1)}" y="${(y - 3).toFixed(1)}" text-anchor="middle" font-size="10">${b.value}</text>` : ""
    return `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${colour}"><title>${escapeHtml(`${b.label}: ${b.value}`)}</title></rect>${value}${label}`
  })
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(title)}">
<title>${escapeHtml(title)}</title><rect width="100%" height="100%" fill="#ffffff"/>
<text x="${PAD.left}" y="14" font-size="12" font-family="system-ui,sans-serif">${escapeHtml(title)} (max ${max})</text>
<line x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${WIDTH - PAD.right}" y2="${PAD.top + plotH}" stroke="#57606a"/>
<g font-family="system-ui,sans-serif" fill="#1b1f24">${parts.join("")}</g></svg>`
}
