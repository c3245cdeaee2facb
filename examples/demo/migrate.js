// A one-shot task for the demo stack: prints a few lines and exits 0.
const steps = ["create table users", "create table orders", "add index orders_user"]
for (const step of steps) console.log(`migrate: ${step}`)
console.log("migrate: done")
