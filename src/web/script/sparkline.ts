/**
 * Inline SVG sparklines of each daemon's recent CPU and memory: `GET /api/usage` when the page
 * (re)connects, then one point per usage sample of the event stream.
 */
export const SPARKLINE = `
const SVG_NS = "http://www.w3.org/2000/svg";
const SPARK_W = 84, SPARK_H = 20;
/** The last /api/usage answer: samples by daemon ID, and how many a full history holds. */
let usageById = new Map();
let usageCapacity = 60;
let usageIntervalMs = 2000;

function setUsage(body) {
  usageCapacity = Math.max(2, body.capacity);
  usageIntervalMs = body.interval_ms;
  usageById = new Map(body.daemons.map((d) => [d.id, d.samples]));
}

/** A usage sample of the event stream (UsageSampled): one more point for each running daemon. */
function addUsage(sample) {
  usageIntervalMs = sample.interval_ms;
  for (const d of sample.daemons) {
    const samples = usageById.get(d.id) || [];
    const last = samples[samples.length - 1];
    if (last && last.at >= sample.at) continue; // already in the history fetched
    samples.push({ at: sample.at, cpu_percent: d.cpu_percent, memory_bytes: d.memory_bytes });
    if (samples.length > usageCapacity) samples.splice(0, samples.length - usageCapacity);
    usageById.set(d.id, samples);
  }
}

function svgEl(tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/** An empty sparkline: an area under a line, with a tooltip. */
function makeSpark(kind) {
  const svg = svgEl("svg", {
    class: "spark spark-" + kind, width: SPARK_W, height: SPARK_H,
    viewBox: "0 0 " + SPARK_W + " " + SPARK_H, role: "img",
  });
  const title = svgEl("title", {});
  // a track over a full history's width: a young history fills it from the right
  const track = svgEl("line", { class: "track", x1: 0, y1: SPARK_H - 0.5, x2: SPARK_W, y2: SPARK_H - 0.5 });
  svg.append(title, track, svgEl("polygon", { class: "area", points: "" }), svgEl("polyline", { class: "line", points: "" }));
  return svg;
}

/**
 * Draws \`values\` (oldest first) right-aligned on a full history's width, scaled to their
 * maximum (at least \`floor\`, so that a quiet daemon stays near the bottom). Attributes only.
 */
function drawSpark(svg, values, floor, label) {
  const key = values.join(",");
  if (svg.dataset.values === key) return;
  svg.dataset.values = key;
  const max = Math.max(floor, ...values);
  const step = SPARK_W / (usageCapacity - 1);
  const x0 = SPARK_W - (values.length - 1) * step;
  const round = (n) => Math.round(n * 10) / 10;
  const points = values.map((v, i) => round(x0 + i * step) + "," + round(SPARK_H - 1 - (v / max) * (SPARK_H - 3)));
  svg.querySelector("polyline").setAttribute("points", points.join(" "));
  svg.querySelector("polygon").setAttribute(
    "points",
    values.length < 2 ? "" : round(x0) + "," + SPARK_H + " " + points.join(" ") + " " + SPARK_W + "," + SPARK_H,
  );
  svg.setAttribute("aria-label", label);
  svg.querySelector("title").textContent = label;
}

/** Fills the CPU and memory sparklines of a row from the last usage answer. */
function fillSparks(row, running) {
  const samples = running ? usageById.get(row.id) || [] : [];
  row.cpuSpark.style.visibility = samples.length ? "visible" : "hidden";
  row.memSpark.style.visibility = samples.length ? "visible" : "hidden";
  const cpu = samples.map((s) => s.cpu_percent);
  const mem = samples.map((s) => s.memory_bytes);
  const span = "last " + humanDuration(Math.round((samples.length * usageIntervalMs) / 1000));
  drawSpark(row.cpuSpark, cpu, 5, "CPU, " + span + ": max " + Math.max(0, ...cpu).toFixed(1) + " %");
  drawSpark(row.memSpark, mem, 1, "Memory, " + span + ": max " + humanBytes(Math.max(0, ...mem)));
}
`
