import { createRequire } from "node:module"
import { readFileSync, writeFileSync } from "node:fs"
import zlib from "node:zlib"
const require = createRequire(process.cwd() + "/package.json")
const jpeg = require("jpeg-js")
const [, , src, dst, scale = "1"] = process.argv
const img = jpeg.decode(readFileSync(src), { useTArray: true })
const s = Number(scale)
const w = Math.floor(img.width * s),
  h = Math.floor(img.height * s)
const raw = Buffer.alloc((w * 3 + 1) * h)
for (let y = 0; y < h; y++) {
  raw[y * (w * 3 + 1)] = 0
  for (let x = 0; x < w; x++) {
    const p = (Math.floor(y / s) * img.width + Math.floor(x / s)) * 4
    const q = y * (w * 3 + 1) + 1 + x * 3
    raw[q] = img.data[p]
    raw[q + 1] = img.data[p + 1]
    raw[q + 2] = img.data[p + 2]
  }
}
const crcT = []
for (let n = 0; n < 256; n++) {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  crcT[n] = c >>> 0
}
const crc = (b) => {
  let c = 0xffffffff
  for (const x of b) c = crcT[(c ^ x) & 255] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
const chunk = (t, d) => {
  const l = Buffer.alloc(4)
  l.writeUInt32BE(d.length)
  const td = Buffer.concat([Buffer.from(t), d])
  const c = Buffer.alloc(4)
  c.writeUInt32BE(crc(td))
  return Buffer.concat([l, td, c])
}
const ihdr = Buffer.alloc(13)
ihdr.writeUInt32BE(w, 0)
ihdr.writeUInt32BE(h, 4)
ihdr[8] = 8
ihdr[9] = 2
writeFileSync(
  dst,
  Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", zlib.deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]),
)
