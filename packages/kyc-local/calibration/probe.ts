import { writeFileSync } from 'node:fs'
import { faceTile, variant } from '../src/samples.ts'
import { detectFaces, faceModels } from '../src/models.ts'
const h: any = await faceModels()
const embs: Array<number[] | null> = []
const t0 = Date.now()
for (let i = 0; i < 120; i++) {
  const f = await detectFaces(faceTile(i))
  embs.push(f.length > 0 && f[0]!.embedding.length ? [...f[0]!.embedding] : null)
  if (f.length === 0) console.log('noface', i)
}
console.log('ms/face', (Date.now() - t0) / 120)
const sim = (a: number[], b: number[]) => h.match.similarity(a, b)
const cos = (a: number[], b: number[]) => { let d = 0, na = 0, nb = 0; for (let k = 0; k < a.length; k++) { d += a[k]! * b[k]!; na += a[k]! ** 2; nb += b[k]! ** 2 } return d / Math.sqrt(na * nb) }
const pairs: Array<[number, number, number, number]> = []
for (let i = 0; i < 120; i++) for (let j = i + 1; j < 120; j++) if (embs[i] && embs[j]) pairs.push([i, j, sim(embs[i]!, embs[j]!), cos(embs[i]!, embs[j]!)])
pairs.sort((a, b) => b[3] - a[3])
console.log('top different pairs', pairs.slice(0, 25).map((p) => `${p[0]}-${p[1]}:${p[2].toFixed(2)}/${p[3].toFixed(2)}`).join(' '))
const cs = pairs.map((p) => p[3]).sort((a, b) => a - b); console.log('cos pctl 50/90/99/max', cs[Math.floor(cs.length*0.5)], cs[Math.floor(cs.length*0.9)], cs[Math.floor(cs.length*0.99)], cs[cs.length-1])
// same-face variants
const same: number[] = []
for (const i of [40, 41, 45, 50, 60, 70, 80, 90, 100, 110]) {
  if (!embs[i]) continue
  for (const v of [{ brightness: 0.6 }, { brightness: 1.4 }, { scale: 0.6 }, { scale: 1.5 }, { degrees: 8 }, { degrees: -8 }]) {
    const f = await detectFaces(variant(faceTile(i), v)); if (!f[0]) { console.log('novariant', i, v); continue }
    same.push(cos(embs[i]!, [...f[0].embedding]))
  }
}
same.sort((a, b) => a - b); console.log('same cos min/10%/50%', same[0], same[Math.floor(same.length * 0.1)], same[Math.floor(same.length / 2)])
writeFileSync('/tmp/kycf/embs.json', JSON.stringify(embs))
