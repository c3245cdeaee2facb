// A background worker for the demo stack: logs a line every second.
let job = 0
console.log("worker started")
setInterval(() => {
  job++
  console.log(`worker processed job ${job}`)
  if (job % 5 === 0) console.error(`worker: job ${job} was slow`)
}, 1000)
process.on("SIGTERM", () => {
  console.log(`worker stopping after ${job} jobs`)
  process.exit(0)
})
