/** Encrypted files, signature images and PDFs prepared for signing in memory. */
import { Context, Option } from "effect"
import { EncryptedFiles, PreparedPdfs, SignatureImages, type EncryptedFile, type PreparedPdf, type SignatureImage } from "@signet/core"
import { purge } from "./identity.ts"
import { type MemoryDatabase, Table, unique } from "./memory-database.ts"
import { orderBy } from "./order.ts"

/** The documents repositories over `db`. */
export const documentsMemory = (db: MemoryDatabase) => {
  const files = new Table<string, EncryptedFile>()
  const images = new Table<string, SignatureImage>()
  const pdfs = new Table<string, PreparedPdf>()
  return Context.make(
    EncryptedFiles,
    EncryptedFiles.of({
      insert: (f) =>
        db.write((j) => {
          if (files.has(f.id)) unique("file id")
          // (file, recipient) is the recipients table's primary key: a repeated recipient is a database error
          if (new Set(f.recipients).size !== f.recipients.length) throw new Error(`file ${f.id}: a recipient is listed twice`)
          files.set(j, f.id, f)
        }),
      findById: (id) => db.run(() => Option.fromNullable(files.get(id))),
      listForUser: (userId, limit) =>
        db.run(() =>
          files
            .where((f) => f.ownerUserId === userId || f.recipients.includes(userId))
            .sort(orderBy([(f) => f.createdAt, "desc"], [(f) => f.id, "asc"]))
            .slice(0, Math.max(0, limit)),
        ),
      remove: (id) =>
        db.run((j) => {
          files.delete(j, id)
        }),
    }),
  ).pipe(
    Context.add(
      SignatureImages,
      SignatureImages.of({
        save: (i) => db.run((j) => images.set(j, i.userId, i)),
        findByUser: (userId) => db.run(() => Option.fromNullable(images.get(userId))),
        remove: (userId) => db.run((j) => images.delete(j, userId)),
      }),
    ),
    Context.add(
      PreparedPdfs,
      PreparedPdfs.of({
        insert: (p) =>
          db.write((j) => {
            if (pdfs.has(p.requestId)) unique("prepared pdf")
            pdfs.set(j, p.requestId, p)
          }),
        findByRequestId: (id) => db.run(() => Option.fromNullable(pdfs.get(id))),
        purgeBefore: (before) =>
          db.run((j) =>
            purge(
              j,
              pdfs,
              (p) => p.createdAt < before,
              (p) => p.requestId,
            ),
          ),
      }),
    ),
  )
}
