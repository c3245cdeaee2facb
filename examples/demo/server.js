// A tiny HTTP API for the demo stack: answers /health and / on $PORT, on $HOST (the loopback by default).
import http from "node:http"

const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? "127.0.0.1"
let hits = 0
http
  .createServer((req, res) => {
    if (req.url === "/health") {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ ok: true }))
      return
    }
    hits++
    res.writeHead(200, { "content-type": "text/plain" })
    res.end(`hello from the demo api (request #${hits})\n`)
  })
  .listen(port, host, () => console.log(`api listening on http://${host}:${port}`))
process.on("SIGTERM", () => {
  console.log("api shutting down")
  process.exit(0)
})
