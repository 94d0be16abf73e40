/** @signet/testkit/pdf: sample PDFs, the Debian PDF verifiers, and the RP side of PAdES hash signing. */
export * from "./verifiers.ts"
export * from "./hash-signing.ts"
export * from "./poison.ts"
export * from "./fuzz.ts"
export * from "./forms.ts"
