/**
 * A budget on the nesting of JSON text, checked before it is parsed: recursive code after the
 * parser (schema decoding, error formatting, canonicalisation) must never meet input deeper than
 * it can walk. The scan is a loop over the characters, so it cannot itself be driven deep.
 */

/** The deepest JSON any body may be: no request the spec defines needs more than a handful of levels. */
export const MAX_JSON_DEPTH = 64

/** The nesting depth of JSON text (arrays and objects), counted outside strings; stops counting past `limit`. */
export const jsonDepth = (text: string, limit = MAX_JSON_DEPTH): number => {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // backslash: the next character is escaped
      else if (c === 0x22) inString = false
      continue
    }
    if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      depth++
      if (depth > deepest) {
        deepest = depth
        if (deepest > limit) return deepest
      }
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return deepest
}

/** Why the text is over the nesting budget, or undefined. */
export const jsonDepthProblem = (text: string, limit = MAX_JSON_DEPTH): string | undefined =>
  jsonDepth(text, limit) > limit ? `nesting deeper than ${limit} levels` : undefined
