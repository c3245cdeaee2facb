/**
 * The terminal pane: a daemon's pseudo-terminal in xterm.js over the attach WebSocket
 * (docs/attach.md: binary frames are output and keystrokes, text frames JSON messages). xterm.js
 * and its style sheet are loaded from the listener (`assets/`) the first time a pane opens, not
 * with the page. The socket goes to the page's own origin, so it carries the session cookie.
 */
export const TERMINAL = `
/** The open pane (its daemon, socket and xterm Terminal), or null. */
let pane = null;
/** xterm.js and its CSS being loaded or loaded (the Terminal class), once for the page. */
let xtermLoad = null;
const termEncoder = new TextEncoder();

/** Whether a daemon's row offers its terminal: under a pty and running. */
function attachable(d) {
  return d.pty === true && d.pid !== null;
}

function loadXterm() {
  if (xtermLoad) return xtermLoad;
  const load = (node, what) =>
    new Promise((resolve, reject) => {
      node.addEventListener("load", resolve);
      node.addEventListener("error", () => {
        node.remove();
        reject(new Error("cannot load " + what));
      });
      document.head.append(node);
    });
  xtermLoad = Promise.all([
    load(el("link", { rel: "stylesheet", href: "assets/xterm.css" }), "assets/xterm.css"),
    load(el("script", { src: "assets/xterm.js" }), "assets/xterm.js"),
  ]).then(
    () => window.Terminal,
    (e) => {
      xtermLoad = null; // the next opening tries again
      throw e;
    },
  );
  return xtermLoad;
}

/** The state line: "attached (pid 1234)", "detached", "exited with code 0"; data-state for the style. */
function setTermState(state, text) {
  $("term").dataset.state = state;
  $("term-state").textContent = text;
  $("term-again").hidden = state !== "detached" && state !== "exited";
}

function exitText(m) {
  if (m.code !== null && m.code !== undefined) return "exited with code " + m.code;
  return m.signal ? "exited on " + m.signal : "exited";
}

async function openTerminal(id) {
  closeTerminal();
  const p = { id, ws: null, term: null, observer: null, attached: false, ended: false };
  pane = p;
  $("term-title").textContent = id;
  setTermState("attaching", "loading the terminal…");
  $("term").hidden = false;
  $("term").scrollIntoView({ block: "nearest" });
  let Terminal;
  try {
    Terminal = await loadXterm();
  } catch (e) {
    if (pane === p) setTermState("detached", e.message);
    return;
  }
  if (pane !== p) return;
  const term = new Terminal({
    fontFamily: getComputedStyle(document.documentElement).getPropertyValue("--mono"),
    fontSize: 13,
    scrollback: 5000,
    // the daemon's terminal adds no CR before a newline (its log stays clean, src/process/ptyScript.ts):
    // the pane adds it, as a terminal's own output processing would
    convertEol: true,
  });
  p.term = term;
  term.open($("term-screen"));
  fitTerminal(p);
  p.observer = new ResizeObserver(() => fitTerminal(p));
  p.observer.observe($("term-screen"));
  // Ctrl+C (Cmd+C) with a selection copies it (the browser's copy, which xterm fills with the
  // selection) instead of sending ^C; Ctrl+V pastes
  term.attachCustomKeyEventHandler((event) => {
    if (event.type !== "keydown" || event.altKey || !(event.ctrlKey || event.metaKey)) return true;
    const key = event.key.toLowerCase();
    if (key === "c" && term.hasSelection()) return false;
    return key !== "v";
  });
  term.element.addEventListener("copy", () => setTimeout(() => term.clearSelection()));
  term.onData((data) => sendKeys(p, termEncoder.encode(data)));
  term.onBinary((data) => sendKeys(p, Uint8Array.from(data, (c) => c.charCodeAt(0) & 255)));
  term.onResize(({ rows, cols }) => {
    if (p.ws && p.ws.readyState === WebSocket.OPEN) p.ws.send(JSON.stringify({ _tag: "Resize", rows, cols }));
  });
  attachSocket(p);
  term.focus();
}

function sendKeys(p, bytes) {
  if (p.ws && p.ws.readyState === WebSocket.OPEN && !p.ended) p.ws.send(bytes);
}

/**
 * Fits the terminal to its box: the cell size is what xterm drew (its screen's size over its
 * rows and columns), the room is the box's less a scroll bar's width.
 */
function fitTerminal(p) {
  const screen = p.term && p.term.element && p.term.element.querySelector(".xterm-screen");
  if (!screen || screen.offsetWidth === 0 || screen.offsetHeight === 0) return;
  const cellWidth = screen.offsetWidth / p.term.cols;
  const cellHeight = screen.offsetHeight / p.term.rows;
  const box = $("term-screen");
  const cols = Math.max(2, Math.floor((box.clientWidth - 14) / cellWidth));
  const rows = Math.max(1, Math.floor(box.clientHeight / cellHeight));
  if (cols !== p.term.cols || rows !== p.term.rows) p.term.resize(cols, rows);
}

function attachSocket(p) {
  const path = "api/daemons/" + encodeURIComponent(p.id) + "/attach?rows=" + p.term.rows + "&cols=" + p.term.cols;
  const url = new URL(path, location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  setTermState("attaching", "attaching…");
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  p.ws = ws;
  ws.addEventListener("message", (event) => {
    if (pane !== p) return;
    if (typeof event.data !== "string") return p.term.write(new Uint8Array(event.data));
    let m;
    try {
      m = JSON.parse(event.data);
    } catch {
      return;
    }
    if (m._tag === "Attached") {
      p.attached = true;
      setTermState("attached", "attached (pid " + m.pid + ")");
    } else if (m._tag === "Dropped") {
      p.term.write("\\r\\n\\x1b[33m[" + m.bytes + " bytes not shown: the page fell behind; the logs have them]\\x1b[0m\\r\\n");
    } else if (m._tag === "Exited") {
      p.ended = true;
      setTermState("exited", exitText(m));
    }
  });
  ws.addEventListener("close", (event) => {
    if (pane !== p || p.ended) return;
    p.ended = true;
    if (p.attached) setTermState("detached", "detached" + (event.reason ? ": " + event.reason : " (the connection closed)"));
    else whyNotAttached(p);
  });
}

/** A socket refused before it opened says nothing of why: the daemon's entry does. */
async function whyNotAttached(p) {
  let text = "cannot attach: the connection failed";
  try {
    const res = await fetch("api/daemons?usage=false&id=" + encodeURIComponent(p.id), { cache: "no-store" });
    if (res.status === 401) return showLogin();
    const d = res.ok ? (await res.json()).find((e) => e.id.qualified === p.id) : null;
    if (d === null) text = "cannot attach: " + (await problemText(res));
    else if (!d) text = "cannot attach: the supervisor knows no daemon " + p.id;
    else if (!d.pty) text = "cannot attach: it has no terminal (give it one with pty = true)";
    else if (d.pid === null) text = "cannot attach: it is not running (" + d.status.type + ")";
  } catch (e) {
    text = "cannot reach the supervisor: " + e.message;
  }
  if (pane === p) setTermState("detached", text);
}

/** Closes the pane: the socket is closed (the daemon runs on) and the terminal thrown away. */
function closeTerminal() {
  const p = pane;
  pane = null;
  $("term").hidden = true;
  if (!p) return;
  p.ended = true;
  if (p.observer) p.observer.disconnect();
  if (p.ws) p.ws.close(1000);
  if (p.term) p.term.dispose();
  $("term-screen").replaceChildren();
}

$("term-close").addEventListener("click", closeTerminal);
$("term-again").addEventListener("click", () => {
  if (pane) openTerminal(pane.id);
});
`
