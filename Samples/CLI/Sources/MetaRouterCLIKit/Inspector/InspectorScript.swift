/// The inspector page's script: a server-sent event stream (no polling), newest rows first,
/// at most `keep` rows in the page.
enum InspectorScript {
    static let source = #"""
        "use strict";
        const keep = 2000;
        const state = { paused: false, held: [], seen: new Set(), events: new Map(), batches: new Map(), selected: null,
                        condition: null, conditionTimer: null, count: 0 };
        const $ = (id) => document.getElementById(id);
        const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };

        const theme = localStorage.getItem("metarouter-theme");
        if (theme) document.documentElement.dataset.theme = theme;
        $("theme").onclick = () => {
          const dark = document.documentElement.dataset.theme === "dark" ||
            (!document.documentElement.dataset.theme && matchMedia("(prefers-color-scheme: dark)").matches);
          document.documentElement.dataset.theme = dark ? "light" : "dark";
          localStorage.setItem("metarouter-theme", document.documentElement.dataset.theme);
          drawChart();
        };
        $("host").textContent = location.origin;
        for (const span of document.querySelectorAll(".host-copy")) span.textContent = location.origin;

        function nameOf(e) { return e.event || e.name || ""; }
        function userOf(e) { return e.userId || e.anonymousId || ""; }
        function timeOf(e) { const t = e.timestamp || ""; return t.length > 19 ? t.slice(11, 23) : t; }

        function addEvent(record) {
          if (state.seen.has(record.seq)) return;
          state.seen.add(record.seq);
          state.events.set(record.seq, record);
          state.count += 1;
          $("count-events").textContent = state.count;
          if (state.paused) { state.held.push(record); return; }
          render(record);
        }

        function render(record) {
          $("empty").style.display = "none";
          const e = record.event, a = record.analysis || {};
          const row = el("tr", "row");
          row.dataset.seq = record.seq;
          row.dataset.search = [e.type, nameOf(e), e.userId || "", e.anonymousId || ""].join(" ").toLowerCase();
          row.append(el("td", "mono", timeOf(e)), el("td", "type", e.type), el("td", "name", nameOf(e)), el("td", "mono user", userOf(e)),
                     el("td", "mono", "#" + record.batch));
          const badges = el("td", "badges");
          if ((a.wireProblems || []).length) badges.append(el("span", "badge problem wire", "wire"));
          if ((a.violations || []).length) badges.append(el("span", "badge problem violation", "plan"));
          if (a.rules && a.rules.outcome !== "kept") badges.append(el("span", "badge note rules", "rules: " + a.rules.outcome));
          if (record.duplicate) badges.append(el("span", "badge problem duplicate", "duplicate"));
          if (record.truncated) badges.append(el("span", "badge note truncated", "truncated"));
          if (record.outOfOrder) badges.append(el("span", "badge note order", "out of order"));
          const plan = e.context && e.context.trackingPlan && e.context.trackingPlan.sha256;
          if (typeof plan === "string") badges.append(el("span", "badge info plan-version", "plan " + plan.slice(0, 8)));
          row.append(badges);
          row.onclick = () => select(record.seq);
          applyFilters(row);
          const rows = $("rows");
          rows.insertBefore(row, rows.firstChild);
          while (rows.children.length > keep) {
            const last = rows.lastChild;
            state.events.delete(Number(last.dataset.seq));
            rows.removeChild(last);
          }
          if (state.condition) scheduleCondition();
        }

        function applyFilters(row) {
          const text = $("filter").value.trim().toLowerCase();
          const byText = !text || row.dataset.search.includes(text);
          const byCondition = !state.condition || state.condition.has(Number(row.dataset.seq));
          row.classList.toggle("hidden", !(byText && byCondition));
        }
        function refilter() { for (const row of $("rows").children) applyFilters(row); }

        function jsonNode(key, value, depth) {
          const label = key === null ? "" : key;
          if (value !== null && typeof value === "object") {
            const node = el("details", "json");
            if (depth < 2) node.open = true;
            const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
            const summary = el("summary");
            summary.append(el("span", "key", label === "" ? "" : label + ": "), el("span", "muted", Array.isArray(value) ? "[" + entries.length + "]" : "{" + entries.length + "}"));
            node.append(summary);
            for (const [k, v] of entries) node.append(jsonNode(k, v, depth + 1));
            return node;
          }
          const line = el("div", "json-line mono");
          if (label !== "") line.append(el("span", "key", label + ": "));
          const kind = typeof value === "string" ? "string" : typeof value === "number" ? "number" : "literal";
          line.append(el("span", kind, JSON.stringify(value)));
          return line;
        }

        function section(title, ...children) {
          const box = el("div", "section");
          box.append(el("h3", null, title), ...children);
          return box;
        }

        function select(seq) {
          const record = state.events.get(seq);
          if (!record) return;
          state.selected = seq;
          for (const row of document.querySelectorAll("tr.row.selected")) row.classList.remove("selected");
          const row = document.querySelector(`tr.row[data-seq="${seq}"]`);
          if (row) row.classList.add("selected");
          const e = record.event, a = record.analysis || {}, b = state.batches.get(record.batch) || {};
          const detail = $("detail");
          detail.replaceChildren();
          detail.append(el("h2", null, `${e.type} ${nameOf(e)}`.trim()));
          const problems = el("ul", "problems");
          problems.id = "problems";
          for (const p of a.wireProblems || []) problems.append(el("li", "wire-problem", "wire: " + p));
          for (const v of a.violations || []) problems.append(el("li", "violation", `plan: ${v.path || "(event)"} — ${v.rule}: ${v.message}`));
          if (record.duplicate) problems.append(el("li", null, "duplicate: this messageId arrived before"));
          if (record.outOfOrder) problems.append(el("li", null, "out of order: older than the event before it for this user"));
          if (problems.children.length) detail.append(section("Problems", problems));
          if (a.rules) {
            const rules = el("div");
            rules.append(el("div", null, "outcome: " + a.rules.outcome));
            for (const m of a.rules.matched) rules.append(el("div", "mono", m));
            for (const d of a.rules.diff) rules.append(el("div", "mono", `${d.path}: ${JSON.stringify(d.before)} → ${JSON.stringify(d.after)}`));
            detail.append(section("What the rules would do", rules));
          }
          const headers = el("div", "kv");
          for (const [k, v] of [["Batch", "#" + record.batch], ["Idempotency-Key", b.idempotencyKey || "—"], ["Trace", b.trace ? "true" : "—"],
                                ["gzip", b.gzip ? `yes (${b.wireBytes} → ${b.bytes} bytes)` : "no"], ["Write key", b.writeKey || "—"],
                                ["Attempt", b.attempt || 1]]) {
            headers.append(el("span", null, k), el("span", "mono", String(v)));
          }
          detail.append(section("Batch", headers));
          const copy = el("button", null, "Copy JSON");
          copy.onclick = () => {
            const text = JSON.stringify(e, null, 2);
            (navigator.clipboard ? navigator.clipboard.writeText(text) : Promise.reject()).then(
              () => { copy.textContent = "Copied"; }, () => { window.prompt("Copy the event:", text); });
          };
          const tree = el("div", "mono");
          tree.id = "detail-json";
          tree.dataset.json = JSON.stringify(e);
          tree.append(jsonNode(null, e, 0));
          detail.append(section("Event", copy, tree));
        }

        function addBatch(batch) {
          if (state.batches.has(batch.seq)) return;
          state.batches.set(batch.seq, batch);
          $("count-batches").textContent = state.batches.size;
          const row = el("tr", "batch");
          row.dataset.status = batch.status;
          row.dataset.key = batch.idempotencyKey || "";
          row.dataset.attempt = batch.attempt || 1;
          const ok = typeof batch.status === "number" && batch.status < 300;
          row.append(el("td", null, "#" + batch.seq), el("td", "mono", (batch.receivedAt || "").slice(11, 19)),
                     el("td", ok ? "status-ok" : "status-bad", String(batch.status) + (batch.fault ? " (fault)" : "")),
                     el("td", null, String(batch.attempt || 1)), el("td", null, String(batch.events || 0)), el("td", "mono", batch.idempotencyKey || ""));
          const body = $("batches");
          body.insertBefore(row, body.firstChild);
          while (body.children.length > 300) body.removeChild(body.lastChild);
          drawChart();
        }

        function drawChart() {
          const canvas = $("chart"), g = canvas.getContext("2d"), now = Date.now(), width = canvas.width, height = canvas.height;
          const buckets = new Array(60).fill(0), sizes = new Array(60).fill(0), counts = new Array(60).fill(0);
          for (const b of state.batches.values()) {
            if (typeof b.status !== "number" || b.status >= 300) continue;
            const age = Math.floor((now - Date.parse(b.receivedAt)) / 5000);
            if (age < 0 || age >= 60) continue;
            buckets[59 - age] += b.events || 0; sizes[59 - age] += b.events || 0; counts[59 - age] += 1;
          }
          $("rate").textContent = (buckets[59] / 5 + buckets[58] / 5).toFixed(0) === "0" ? "0" : ((buckets[59] + buckets[58]) / 10).toFixed(1);
          const style = getComputedStyle(document.documentElement);
          g.clearRect(0, 0, width, height);
          const top = Math.max(1, ...buckets), step = width / 60;
          g.fillStyle = style.getPropertyValue("--accent");
          buckets.forEach((n, i) => { const h = (n / top) * (height - 10); g.fillRect(i * step + 1, height - h, step - 2, h); });
          const averages = sizes.map((s, i) => counts[i] ? s / counts[i] : null), peak = Math.max(1, ...averages.filter((x) => x !== null));
          g.strokeStyle = style.getPropertyValue("--warn"); g.lineWidth = 2; g.beginPath();
          let started = false;
          averages.forEach((avg, i) => { if (avg === null) return; const y = height - (avg / peak) * (height - 10);
            if (started) g.lineTo(i * step + step / 2, y); else { g.moveTo(i * step + step / 2, y); started = true; } });
          g.stroke();
        }
        setInterval(drawChart, 5000);

        function showStats(stats) {
          $("count-duplicates").textContent = stats.duplicates;
          $("count-out-of-order").textContent = stats.outOfOrder;
        }
        function showFaults(faults) {
          $("faults-queued").textContent = faults.length ? "queued: " + faults.map((f) => `${f.fault} ×${f.left}`).join(", ") : "";
        }

        // What changes something carries this run's token, which only the page's own HTML holds.
        const token = document.querySelector('meta[name="metarouter-token"]').content;
        function post(path, body) {
          return fetch(path, { method: "POST", headers: { "Content-Type": "application/json", "X-MetaRouter-Token": token }, body: JSON.stringify(body) });
        }

        function scheduleCondition() {
          if (state.conditionTimer) return;
          state.conditionTimer = setTimeout(() => { state.conditionTimer = null; runCondition(); }, 300);
        }
        async function runCondition() {
          const text = $("condition").value.trim();
          $("condition-error").textContent = "";
          if (!text) { state.condition = null; refilter(); return; }
          const answer = await (await post("/api/filter", { condition: text })).json();
          if (answer.error) { $("condition-error").textContent = answer.error; state.condition = null; }
          else state.condition = new Set(answer.matches);
          refilter();
        }
        $("apply-condition").onclick = runCondition;
        $("condition").addEventListener("keydown", (e) => { if (e.key === "Enter") runCondition(); });
        $("filter").addEventListener("input", refilter);
        $("pause").onclick = () => {
          state.paused = !state.paused;
          $("pause").textContent = state.paused ? "Resume" : "Pause";
          $("pause").classList.toggle("active", state.paused);
          if (!state.paused) { const held = state.held; state.held = []; held.forEach(render); }
        };
        $("clear").onclick = () => post("/api/clear", {});
        for (const button of document.querySelectorAll("button[data-fault]")) {
          button.onclick = async () => {
            const count = Number($("fault-count").value) || 1;
            showFaults(await (await post("/api/faults", { fault: button.dataset.fault, count })).json());
          };
        }
        function clearAll() {
          state.events.clear(); state.batches.clear(); state.seen.clear(); state.held = []; state.count = 0;
          $("rows").replaceChildren(); $("batches").replaceChildren(); $("count-events").textContent = "0"; $("count-batches").textContent = "0";
          $("empty").style.display = ""; $("detail").replaceChildren(el("p", "empty", "Select an event to see its JSON, its batch and what is wrong with it."));
          drawChart();
        }

        // The stream first, then what the store already holds; a record seen twice is shown once.
        const early = [];
        let loaded = false;
        const stream = new EventSource("/api/stream");
        const on = (kind, handle) => stream.addEventListener(kind, (m) => { const data = JSON.parse(m.data); loaded ? handle(data) : early.push([handle, data]); });
        on("event", addEvent); on("batch", addBatch); on("stats", showStats); on("faults", showFaults); on("clear", clearAll);
        stream.onopen = () => $("live").classList.add("on");
        stream.onerror = () => $("live").classList.remove("on");
        fetch("/api/snapshot").then((r) => r.json()).then((snapshot) => {
          snapshot.batches.forEach(addBatch);
          snapshot.events.slice(-keep).forEach(addEvent);
          showStats(snapshot.stats); showFaults(snapshot.faults);
          loaded = true;
          for (const [handle, data] of early) handle(data);
          early.length = 0;
          document.body.dataset.ready = "true";
        });
        """#
}
