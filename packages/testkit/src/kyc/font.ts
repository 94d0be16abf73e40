/**
 * Core's OCR-B-like 7×9 cell font (`A-Z`, `0-9`, `<` and more) for the fixture documents, drawn
 * as round strokes between neighbouring cells (anti-aliased), so the upscaled glyphs have the
 * even stroke of OCR-B.
 */
import { FONT_CHARACTERS, FONT_COLS, FONT_ROWS, glyphOf } from "@signet/core"

/** Glyph matrix width, in cells (core's font). */
export const GLYPH_COLS = FONT_COLS
/** Glyph matrix height, in cells (core's font). */
export const GLYPH_ROWS = FONT_ROWS

/** The characters the font draws (anything else is left blank, like a space). */
export const GLYPHS = FONT_CHARACTERS

/** A glyph rendered at one size: coverage 0..255 per pixel, `width`×`height`, the cell origin at (`pad`, `pad`). */
export interface GlyphMask {
  readonly width: number
  readonly height: number
  readonly pad: number
  readonly alpha: Uint8Array
}

type Segment = readonly [number, number, number, number]

/** The strokes of a glyph, in cell units: every lit cell, joined to its lit neighbours (diagonals only where no orthogonal path exists). */
const strokes = (rows: ReadonlyArray<string>): Array<Segment> => {
  const on = (x: number, y: number) => y >= 0 && y < GLYPH_ROWS && x >= 0 && x < GLYPH_COLS && rows[y]![x] === "#"
  const out: Array<Segment> = []
  for (let y = 0; y < GLYPH_ROWS; y++) {
    for (let x = 0; x < GLYPH_COLS; x++) {
      if (!on(x, y)) continue
      out.push([x, y, x, y])
      if (on(x + 1, y)) out.push([x, y, x + 1, y])
      if (on(x, y + 1)) out.push([x, y, x, y + 1])
      if (on(x + 1, y + 1) && !on(x + 1, y) && !on(x, y + 1)) out.push([x, y, x + 1, y + 1])
      if (on(x - 1, y + 1) && !on(x - 1, y) && !on(x, y + 1)) out.push([x, y, x - 1, y + 1])
    }
  }
  return out
}

const distance = (px: number, py: number, [ax, ay, bx, by]: Segment): number => {
  const dx = bx - ax
  const dy = by - ay
  const len2 = dx * dx + dy * dy
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len2))
  return Math.hypot(px - ax - t * dx, py - ay - t * dy)
}

const masks = new Map<string, GlyphMask | null>()

/** The mask of `char` for cells of `cell` px and a stroke `weight` cells wide (cached), or null for a blank. */
export const glyphMask = (char: string, cell: number, weight = 1.15): GlyphMask | null => {
  const key = `${char}:${cell}:${weight}`
  const cached = masks.get(key)
  if (cached !== undefined) return cached
  const pattern = glyphOf(char)
  if (pattern === undefined) {
    masks.set(key, null)
    return null
  }
  const segments = strokes(pattern).map(([ax, ay, bx, by]): Segment => [(ax + 0.5) * cell, (ay + 0.5) * cell, (bx + 0.5) * cell, (by + 0.5) * cell])
  const radius = (weight * cell) / 2
  const pad = Math.ceil(radius)
  const width = Math.ceil(GLYPH_COLS * cell) + 2 * pad
  const height = Math.ceil(GLYPH_ROWS * cell) + 2 * pad
  const alpha = new Uint8Array(width * height)
  for (let j = 0; j < height; j++) {
    for (let i = 0; i < width; i++) {
      const px = i - pad + 0.5
      const py = j - pad + 0.5
      let d = Infinity
      for (const s of segments) d = Math.min(d, distance(px, py, s))
      alpha[j * width + i] = Math.round(255 * Math.max(0, Math.min(1, radius + 0.5 - d)))
    }
  }
  const mask = { width, height, pad, alpha }
  masks.set(key, mask)
  return mask
}
