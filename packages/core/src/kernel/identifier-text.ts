/**
 * Text hygiene for identifiers people compare by eye (e-mail addresses, KYC customer ids):
 * characters that hide, reorder or imitate others are refused rather than cleaned, so what
 * is stored, shown and written into a certificate is exactly what the person typed.
 */

// C0 and C1 controls and DEL (NUL included).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
// Bidirectional controls (Unicode UAX #9: embeddings, overrides, isolates, marks) and the invisible joiners and BOM.
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/

/** Why an identifier's text is refused, or undefined when it is clean. */
export type UnsafeText = "control" | "bidi-or-invisible" | "compatibility-form"

/**
 * Whether `value` holds a control character, a bidirectional or invisible formatting character,
 * or a compatibility form that NFKC would fold (fullwidth `ｃｅｏ＠ｂａｎｋ．ｅｘａｍｐｌｅ`,
 * ligatures, superscripts): such a value could look like another account's identifier.
 */
export const unsafeText = (value: string): UnsafeText | undefined => {
  if (CONTROL.test(value)) return "control"
  if (INVISIBLE.test(value)) return "bidi-or-invisible"
  // Canonical differences (a composed or decomposed é) are harmless and normalised by callers (NFC); compatibility ones are not.
  if (value.normalize("NFKC") !== value.normalize("NFC")) return "compatibility-form"
  return undefined
}

/** The value with every character outside printable ASCII shown as `\u{…}`, for messages that quote refused input. */
export const visibleText = (value: string): string =>
  Array.from(value.slice(0, 200), (c) => (/^[\x20-\x7e]$/.test(c) ? c : `\\u{${c.codePointAt(0)!.toString(16)}}`)).join("")
