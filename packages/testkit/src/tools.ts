/**
 * Test support for the independent command-line verifiers (openssl, pdfsig, qpdf): files in one
 * scratch folder per test process, and runs that answer instead of throwing. Asynchronous, so a
 * tool may call back into a server in the same process.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

let folder: string | undefined
let n = 0

/** A fresh path in this process's scratch folder (made on first use; the files stay for looking at until the process exits). */
export const scratchPath = (name: string): string => {
  if (folder === undefined) {
    const made = mkdtempSync(join(tmpdir(), "signet-test-"))
    process.once("exit", () => rmSync(made, { recursive: true, force: true }))
    folder = made
  }
  return join(folder, `${n++}-${name}`)
}

/** Writes `data` to a fresh scratch file and answers its path. */
export const scratchFile = (name: string, data: Uint8Array | string): string => {
  const path = scratchPath(name)
  writeFileSync(path, data)
  return path
}

/** Runs a tool; `ok` is its exit status 0, `out` its stdout then stderr (latin1, as the tools print bytes). */
export const runTool = (command: string, args: ReadonlyArray<string>, options: { readonly timeoutMs?: number } = {}) =>
  new Promise<{ readonly ok: boolean; readonly out: string }>((resolve) => {
    execFile(command, args, { encoding: "buffer", maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs ?? 60_000 }, (error, stdout, stderr) =>
      resolve({ ok: error === null, out: `${stdout.toString("latin1")}${stderr.toString("latin1")}` }),
    )
  })
