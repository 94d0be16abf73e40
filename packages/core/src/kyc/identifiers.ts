/**
 * KYC identifiers: `customer_id` (E.164 phone or e-mail), `phone_number` (validated with
 * libphonenumber's full metadata, so unused ranges are refused) and `rp_urn` namespaces.
 */
import { Effect } from "effect"
import { parsePhoneNumberFromString, validatePhoneNumberLength } from "libphonenumber-js/max"
import { InvalidIdentifierFormat, KycUrnForeign } from "./errors.ts"
import { unsafeText, visibleText } from "../kernel/identifier-text.ts"

/** Validates a phone number; the E.164 form (`+254712345678`) or the reason it is refused. */
export const validatePhoneNumber = (value: string): Effect.Effect<string, InvalidIdentifierFormat> => {
  const text = value.trim()
  const refuse = (reason: InvalidIdentifierFormat["reason"]) => Effect.fail(new InvalidIdentifierFormat({ value, reason }))
  if (!text.startsWith("+")) return refuse("no_country_code")
  const compact = text.replace(/[\s().-]/g, "")
  if (!/^\+\d+$/.test(compact)) return refuse("wrong_digit_count")
  const length = validatePhoneNumberLength(compact)
  if (length === "INVALID_COUNTRY") return refuse("no_country_code")
  if (length !== undefined) return refuse("wrong_digit_count")
  const parsed = parsePhoneNumberFromString(compact)
  if (parsed === undefined) return refuse("wrong_digit_count")
  if (!parsed.isValid()) return refuse("unused_range")
  return Effect.succeed(parsed.number)
}

const EMAIL = /^[^\s@]+@([^\s@.]+\.)*[^\s@.]+$/

/** Validates a `customer_id`: an E.164 phone number (normalised) or an e-mail address with a top-level domain (lower-cased). */
export const validateCustomerId = (value: string): Effect.Effect<string, InvalidIdentifierFormat> => {
  if (unsafeText(value) !== undefined) return Effect.fail(new InvalidIdentifierFormat({ value: visibleText(value), reason: "unsafe_characters" }))
  const text = value.normalize("NFC").trim()
  if (text.includes("@")) {
    if (!EMAIL.test(text)) return Effect.fail(new InvalidIdentifierFormat({ value, reason: "email_without_tld" }))
    const domain = text.slice(text.lastIndexOf("@") + 1)
    const tld = domain.includes(".") ? domain.slice(domain.lastIndexOf(".") + 1) : ""
    if (!/^[A-Za-z]{2,63}$/.test(tld)) return Effect.fail(new InvalidIdentifierFormat({ value, reason: "email_without_tld" }))
    return Effect.succeed(text.toLowerCase())
  }
  return validatePhoneNumber(text)
}

/**
 * Normalises an `rp_urn` (string or integer). `urn:<service>:<client_id>:<id>` must name the
 * authenticated RP's client id (403 otherwise); a plain id is the RP's own by definition.
 */
export const normaliseRpUrn = (value: string | number, clientId: string): Effect.Effect<string, KycUrnForeign> => {
  const text = String(value).trim()
  if (!text.toLowerCase().startsWith("urn:")) return Effect.succeed(text)
  const parts = text.split(":")
  // urn:<service>:<client_id>:<id...> — the id may itself contain colons.
  if (parts.length < 4 || parts[2] !== clientId) return Effect.fail(new KycUrnForeign({ urn: text }))
  return Effect.succeed(text)
}
