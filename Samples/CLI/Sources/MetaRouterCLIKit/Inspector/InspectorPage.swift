/// The inspector's page and style sheet, served by the binary (no CDN, no network).
enum InspectorPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="metarouter-token" content="{{token}}">
        <title>MetaRouter inspect</title>
        <link rel="stylesheet" href="/inspector.css">
        </head>
        <body>
        <header>
          <h1>MetaRouter <span>inspect</span></h1>
          <span id="live" class="live" title="connected to the inspector">live</span>
          <span class="hint">ingestionHost: <code id="host"></code></span>
          <div class="figures">
            <span class="figure"><b id="count-events">0</b> events</span>
            <span class="figure"><b id="count-batches">0</b> batches</span>
            <span class="figure"><b id="rate">0</b> events/s</span>
            <span class="figure" title="the same messageId seen again"><b id="count-duplicates">0</b> duplicates</span>
            <span class="figure" title="an event older than the one before it, per anonymousId"><b id="count-out-of-order">0</b> out of order</span>
          </div>
          <button id="theme" title="light or dark">◐</button>
        </header>
        <section class="toolbar">
          <button id="pause">Pause</button>
          <button id="clear">Clear</button>
          <input id="filter" type="search" placeholder="Filter by type, name or user">
          <input id="condition" type="search" placeholder='Condition, e.g. event = "Order Completed" and properties.total > 10'>
          <button id="apply-condition">Apply</button>
          <span id="condition-error" class="error"></span>
          <span class="faults">
            Next <input id="fault-count" type="number" min="1" max="1000" value="1"> batch(es):
            <button data-fault="500">500</button>
            <button data-fault="429">429 + Retry-After</button>
            <button data-fault="413">413</button>
            <button data-fault="drop">Drop connection</button>
            <span id="faults-queued"></span>
          </span>
        </section>
        <main>
          <section class="list">
            <table>
              <thead><tr><th>time</th><th>type</th><th>name</th><th>user</th><th>batch</th><th></th></tr></thead>
              <tbody id="rows"></tbody>
            </table>
            <p id="empty" class="empty">Waiting for events. Point an app's <code>ingestionHost</code> here, or run
              <code>swift run --package-path Samples/CLI metarouter demo --to <span class="host-copy"></span></code>.</p>
          </section>
          <aside id="detail" class="detail">
            <p class="empty">Select an event to see its JSON, its batch and what is wrong with it.</p>
          </aside>
        </main>
        <section class="delivery">
          <div>
            <h2>Delivery, last 5 minutes</h2>
            <canvas id="chart" width="640" height="140"></canvas>
            <p class="legend"><span class="swatch events"></span> events per 5 s <span class="swatch size"></span> average batch size</p>
          </div>
          <div class="batches">
            <h2>Batches</h2>
            <table>
              <thead><tr><th>#</th><th>time</th><th>status</th><th>attempt</th><th>events</th><th>Idempotency-Key</th></tr></thead>
              <tbody id="batches"></tbody>
            </table>
          </div>
        </section>
        <script src="/inspector.js"></script>
        </body>
        </html>
        """#

    static let css = #"""
        :root { --bg: #f7f7f9; --panel: #ffffff; --text: #1d1d22; --muted: #6b6b76; --line: #e3e3ea; --accent: #3b5bdb;
                --bad: #c92a2a; --bad-bg: #fff0f0; --warn: #a86400; --warn-bg: #fff6e0; --ok: #2b8a3e; --row: #f0f2ff; }
        @media (prefers-color-scheme: dark) { :root:not([data-theme=light]) { --bg: #15161a; --panel: #1e1f25; --text: #e8e8ee;
                --muted: #9a9aa8; --line: #30313a; --accent: #8ea2ff; --bad: #ff8787; --bad-bg: #3a1e22; --warn: #ffc078;
                --warn-bg: #3a2f1e; --ok: #69db7c; --row: #262a3d; } }
        :root[data-theme=dark] { --bg: #15161a; --panel: #1e1f25; --text: #e8e8ee; --muted: #9a9aa8; --line: #30313a;
                --accent: #8ea2ff; --bad: #ff8787; --bad-bg: #3a1e22; --warn: #ffc078; --warn-bg: #3a2f1e; --ok: #69db7c; --row: #262a3d; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif; background: var(--bg); color: var(--text); }
        code, pre, .mono { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
        header { display: flex; align-items: center; gap: 16px; padding: 10px 18px; background: var(--panel); border-bottom: 1px solid var(--line); flex-wrap: wrap; }
        h1 { font-size: 17px; margin: 0; } h1 span { color: var(--accent); font-weight: 500; }
        h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 0 0 8px; }
        .live { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: var(--bad-bg); color: var(--bad); }
        .live.on { background: transparent; color: var(--ok); border: 1px solid var(--ok); }
        .hint { color: var(--muted); font-size: 12px; }
        .figures { display: flex; gap: 14px; margin-left: auto; color: var(--muted); }
        .figure b { color: var(--text); font-variant-numeric: tabular-nums; }
        button { font: inherit; padding: 4px 10px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--text); cursor: pointer; }
        button:hover { border-color: var(--accent); } button.active { background: var(--accent); color: #fff; border-color: var(--accent); }
        input { font: inherit; padding: 4px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--text); }
        #filter { width: 220px; } #condition { flex: 1; min-width: 280px; } #fault-count { width: 56px; }
        .toolbar { display: flex; gap: 8px; align-items: center; padding: 10px 18px; flex-wrap: wrap; }
        .faults { display: flex; gap: 6px; align-items: center; margin-left: auto; color: var(--muted); }
        .error { color: var(--bad); font-size: 12px; }
        main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(320px, 2fr); gap: 12px; padding: 0 18px; height: 56vh; }
        .list, .detail, .delivery > div { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; overflow: auto; }
        .detail { padding: 12px 14px; }
        table { width: 100%; border-collapse: collapse; }
        th { position: sticky; top: 0; background: var(--panel); text-align: left; font-weight: 500; color: var(--muted); font-size: 12px; padding: 6px 10px; border-bottom: 1px solid var(--line); }
        td { padding: 5px 10px; border-bottom: 1px solid var(--line); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 260px; }
        tr.row { cursor: pointer; } tr.row:hover, tr.row.selected { background: var(--row); }
        tr.row.hidden { display: none; }
        .type { font-size: 12px; color: var(--accent); }
        .badge { display: inline-block; font-size: 11px; padding: 1px 6px; border-radius: 8px; margin-right: 4px; }
        .badge.problem { background: var(--bad-bg); color: var(--bad); } .badge.note { background: var(--warn-bg); color: var(--warn); }
        .badge.info { background: #e8eef8; color: #2a4a7a; }
        .empty { color: var(--muted); padding: 14px; }
        .delivery { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 12px; padding: 12px 18px 18px; }
        .delivery > div { padding: 12px 14px; max-height: 240px; }
        canvas { width: 100%; height: 140px; }
        .legend { color: var(--muted); font-size: 12px; margin: 4px 0 0; }
        .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin: 0 4px 0 10px; }
        .swatch.events { background: var(--accent); } .swatch.size { background: var(--warn); }
        .status-ok { color: var(--ok); } .status-bad { color: var(--bad); }
        .section { margin: 0 0 14px; } .section h3 { font-size: 12px; color: var(--muted); text-transform: uppercase; margin: 0 0 6px; }
        .problems li { color: var(--bad); } .kv { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; }
        .kv span:nth-child(odd) { color: var(--muted); }
        details.json { margin-left: 14px; } details.json > summary { cursor: pointer; list-style: none; } details.json > summary::before { content: "▸ "; color: var(--muted); }
        details.json[open] > summary::before { content: "▾ "; }
        .json-line { margin-left: 14px; } .key { color: var(--accent); } .string { color: var(--ok); } .number { color: var(--warn); } .literal { color: var(--bad); }
        """#
}
