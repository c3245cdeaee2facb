// A tiny HTTP API for the demo stack: answers /health and / on $PORT.
import http from "node:http"

const port = Number(process.env.PORT ?? 3000)
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
  .listen(port, "127.0.0.1", () => console.log(`api listening on http://127.0.0.1:${port}`))
process.on("SIGTERM", () => {
  console.log("api shutting down")
  process.exit(0)
})
