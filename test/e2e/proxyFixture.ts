// A tiny HTTP + WebSocket server for the proxy's e2e tests, run as a daemon (`node server.cjs`):
// it listens on a port the OS picks (the proxy finds it from the process's sockets).
export const SERVER_JS = String.raw`
const http = require("node:http")
const crypto = require("node:crypto")
const fs = require("node:fs")
fs.appendFileSync("starts.log", process.pid + "\n")
let release
const released = new Promise((r) => { release = r })
const server = http.createServer((req, res) => {
  if (req.url === "/stream") {
    res.writeHead(200, { "content-type": "text/plain" })
    res.write("first\n")
    released.then(() => res.end("last\n"))
    return
  }
  if (req.url === "/release") { release(); return res.end("released") }
  if (req.url === "/upload") {
    let n = 0
    req.on("data", (d) => { n += d.length })
    req.on("end", () => res.end(String(n)))
    return
  }
  res.setHeader("content-type", "application/json")
  res.setHeader("keep-alive", "timeout=5")
  res.end(JSON.stringify({ url: req.url, headers: req.headers, upstreamPort: req.socket.remotePort }))
})
server.on("upgrade", (req, socket) => {
  const accept = crypto.createHash("sha1").update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64")
  socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n")
  const frame = (text) => { const b = Buffer.from(text); return Buffer.concat([Buffer.from([0x81, b.length]), b]) }
  socket.write(frame("hello from server"))
  socket.on("data", (d) => {
    const len = d[1] & 0x7f, mask = d.subarray(2, 6), payload = Buffer.from(d.subarray(6, 6 + len))
    for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4]
    socket.write(frame("echo:" + payload.toString()))
  })
})
server.listen(0, "127.0.0.1", () => console.log("listening on " + server.address().port))
`

/** A masked client text frame (payload under 126 bytes). */
export const clientFrame = (text: string): Buffer => {
  const payload = Buffer.from(text)
  const mask = Buffer.from([1, 2, 3, 4])
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!))
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked])
}

/** The text frames (unmasked, payload under 126 bytes) in a buffer of server data. */
export const serverFrames = (data: Buffer): Array<string> => {
  const out: Array<string> = []
  let at = 0
  while (at + 2 <= data.length) {
    const len = data[at + 1]! & 0x7f
    if (at + 2 + len > data.length) break
    out.push(data.subarray(at + 2, at + 2 + len).toString())
    at += 2 + len
  }
  return out
}
