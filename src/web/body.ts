import { shortcutRows } from "./shortcuts.js"

/** The page's markup: static, with no value from the API (the script fills those in as text). */
export const body = (): string => `
<header>
  <h1>supervisor</h1>
  <span id="stats"></span>
  <button id="help-open" type="button" title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts">?</button>
  <button id="logout" type="button" hidden>Log out</button>
</header>
<main>
  <div id="banner" hidden></div>
  <section id="problems" class="problems" hidden aria-label="Configuration problems"></section>

  <section id="login" class="card" hidden>
    <h2>Log in</h2>
    <p>Paste the API token (<code>supervisor supervisor token</code> prints it) or open the link
      <code>supervisor web</code> prints.</p>
    <form id="login-form">
      <input id="token" type="password" autocomplete="off" placeholder="API token" aria-label="API token" required>
      <button class="primary" type="submit">Log in</button>
    </form>
    <p id="login-error" class="error" role="alert"></p>
  </section>

  <section id="app" hidden>
    <div class="card">
      <table role="table" aria-label="Daemons">
        <thead role="rowgroup"><tr role="row">
          <th role="columnheader">ID</th><th role="columnheader">Status</th><th role="columnheader">PID</th>
          <th role="columnheader">Uptime</th><th role="columnheader">Ports</th><th role="columnheader">CPU</th>
          <th role="columnheader">Memory</th><th role="columnheader">Actions</th>
        </tr></thead>
        <tbody id="daemons" role="rowgroup"></tbody>
      </table>
      <div id="empty" class="empty" hidden>No daemons yet: run <code>supervisor start</code> in a project.</div>
    </div>

    <section id="logs" class="card" hidden>
      <div class="bar">
        <span id="log-title"></span>
        <span id="log-state"></span>
        <input id="log-filter" type="search" placeholder="Filter lines" aria-label="Filter log lines" autocomplete="off">
        <label class="check"><input id="log-regex" type="checkbox"> regex</label>
        <label class="check"><input id="log-case" type="checkbox"> match case</label>
        <span id="log-count"></span>
        <button id="log-close" type="button">Close</button>
      </div>
      <div id="log-filter-error" class="error" role="alert" hidden></div>
      <div id="log-lines"></div>
    </section>

    <section id="term" class="card" hidden aria-label="Terminal">
      <div class="bar">
        <span id="term-title"></span>
        <span id="term-state" role="status"></span>
        <button id="term-again" type="button" hidden>Attach again</button>
        <button id="term-close" type="button">Close</button>
      </div>
      <div id="term-box"><div id="term-screen"></div></div>
    </section>
  </section>
</main>

<dialog id="help" aria-labelledby="help-title">
  <h2 id="help-title">Keyboard shortcuts</h2>
  <table class="keys">
${shortcutRows()}
  </table>
  <p class="sub">No shortcut fires while you type in a field.</p>
  <form method="dialog"><button id="help-close" class="primary">Close</button></form>
</dialog>
`
