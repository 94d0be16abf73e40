// Entry of a PDF worker thread. The engine runs TypeScript sources (tsx for the server, vitest in
// tests), and a worker thread starts with neither loader, so it registers tsx's ESM loader itself
// before importing the TypeScript worker. The pool starts workers with an empty execArgv, so a
// parent's own `--import tsx` is not registered twice.
import { register } from "tsx/esm/api"

register()
await import("./worker.ts")
