/**
 * SHA-256 (FIPS 180-4) of a UTF-8 string, as lowercase hex. The supervisor names its lock with it
 * at every start (lockName.ts); Node's `crypto` module, loaded for that one hash, would hold
 * ~0.4 MiB of the supervisor's memory for its whole life (docs/benchmarks.md).
 */
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
])

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n))

export const sha256Hex = (text: string): string => {
  const data = Buffer.from(text, "utf8")
  // the message, a 1 bit, zeros, and its length in bits (64-bit big-endian): a multiple of 64 bytes
  const blocks = Math.ceil((data.length + 9) / 64)
  const padded = Buffer.alloc(blocks * 64)
  data.copy(padded)
  padded[data.length] = 0x80
  padded.writeUInt32BE(Math.floor(data.length / 0x20000000), padded.length - 8)
  padded.writeUInt32BE((data.length * 8) >>> 0, padded.length - 4)
  const h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
  const w = new Uint32Array(64)
  const at = (i: number) => w[i] as number
  for (let b = 0; b < blocks; b++) {
    for (let t = 0; t < 16; t++) w[t] = padded.readUInt32BE(b * 64 + t * 4)
    for (let t = 16; t < 64; t++) {
      const s0 = rotr(at(t - 15), 7) ^ rotr(at(t - 15), 18) ^ (at(t - 15) >>> 3)
      const s1 = rotr(at(t - 2), 17) ^ rotr(at(t - 2), 19) ^ (at(t - 2) >>> 10)
      w[t] = at(t - 16) + s0 + at(t - 7) + s1
    }
    let [a, bb, c, d, e, f, g, hh] = h as [number, number, number, number, number, number, number, number]
    for (let t = 0; t < 64; t++) {
      const ch = (e & f) ^ (~e & g)
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ch + (K[t] as number) + at(t)) | 0
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c))) | 0
      hh = g
      g = f
      f = e
      e = (d + t1) | 0
      d = c
      c = bb
      bb = a
      a = (t1 + t2) | 0
    }
    const next = [a, bb, c, d, e, f, g, hh]
    for (let i = 0; i < 8; i++) h[i] = ((h[i] as number) + (next[i] as number)) >>> 0
  }
  return h.map((x) => x.toString(16).padStart(8, "0")).join("")
}
