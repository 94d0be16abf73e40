/**
 * What a PDF worker thread imports (`@signet/core/pdf-worker-api`): the PDF jobs and the hashing
 * reference, and nothing of the PKI or storage, so a worker starts fast and small.
 */
export { pdfJobsInProcess, type PdfJobs, type PreparedUpload } from "./processor.ts"
export { Sha256Streams, Sha2Streams } from "./hashing.ts"
