/**
 * `pnpm admin kyc-fixture [dir]`: writes the sandbox KYC fixtures (passport, ID card, selfies, one file per
 * outcome, and `fixtures.json`) for trying KYC against a sandbox engine by hand (docs/kyc.md).
 */

/** What the CLI uses of the testkit's `kyc/files` module (`writeKycFixtures`). */
interface FixtureWriter {
  readonly writeKycFixtures: (dir: string) => ReadonlyArray<{
    readonly file: string
    readonly kind: string
    readonly use: string
    readonly outcome: { readonly status: string; readonly reasons: ReadonlyArray<string> }
  }>
}

/** Writes the fixtures into `dir` and answers what the CLI prints. */
export const kycFixture = async (dir = "kyc-fixtures"): Promise<unknown> => {
  // The fixtures are test tooling (@signet/testkit, a development dependency): a published server does not
  // carry them, so the module is looked up at run time and its absence explained, not a start-up failure.
  const specifier = "@signet/testkit/kyc/files"
  const testkit = (await import(specifier).catch(() => {
    throw new Error("kyc-fixture needs @signet/testkit, which a development checkout of Signet has (pnpm install in the repository)")
  })) as FixtureWriter
  const files = testkit.writeKycFixtures(dir)
  return {
    dir,
    note: "sandbox fixtures: only a sandbox engine's KYC adapters read their SIGNET-SANDBOX marker (docs/kyc.md)",
    files: files.map((f) => ({ file: f.file, kind: f.kind, use: f.use, status: f.outcome.status, reasons: f.outcome.reasons })),
  }
}
