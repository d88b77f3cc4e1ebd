/* The submission page: fills the check, the games and the result against the previous version
 * from /submissions/ID/status.json, and polls it every 2 s while anything can still change. */
(function () {
  "use strict";
  var initial = JSON.parse(document.getElementById("initial").dataset.status);
  var id = initial.id;

  function $(x) { return document.getElementById(x); }
  function cell(tr, text, cls) {
    var td = document.createElement("td");
    td.textContent = text;
    if (cls) { td.className = cls; }
    tr.appendChild(td);
    return td;
  }

  function render(st) {
    var status = $("status");
    status.textContent = st.status;
    status.className = "status-" + st.status;
    var verdict = $("check-verdict");
    if (st.status === "queued" || st.status === "checking") {
      verdict.textContent = "The check is " + (st.status === "queued" ? "waiting in the queue" : "running") + "…";
      verdict.className = "status-queued";
    } else if (st.status === "failed") {
      verdict.textContent = "The check failed: this version does not play. The problems:";
      verdict.className = "status-failed";
    } else if (st.status === "disabled") {
      verdict.textContent = "This version was disabled by the league's admin.";
      verdict.className = "status-disabled";
    } else {
      verdict.textContent = "The check passed: this version plays rating games.";
      verdict.className = "status-rating";
    }
    $("check-summary").textContent = st.check_summary || "";
    $("check-summary").style.display = st.check_summary ? "" : "none";
    $("check-stderr").textContent = st.check_stderr || "(nothing)";
    $("stderr-box").style.display = st.check_stderr ? "" : "none";

    var v = st.versus;
    var box = $("versus");
    if (st.status === "queued" || st.status === "checking") {
      box.textContent = "Played once this version's check has passed.";
    } else if (st.status === "failed") {
      box.textContent = "None: this version's check failed, so it does not play.";
    } else if (v === null || v === undefined) {
      box.textContent = st.status === "disabled" ? "None: this version was disabled."
        : "This is your first version that passed its check.";
    } else {
      box.innerHTML = "";
      var table = document.createElement("table");
      table.id = "versus-table";
      Object.keys(v).forEach(function (k) {
        var tr = document.createElement("tr");
        var th = document.createElement("th");
        th.textContent = k;
        tr.appendChild(th);
        cell(tr, typeof v[k] === "string" ? v[k] : JSON.stringify(v[k]));
        table.appendChild(tr);
      });
      box.appendChild(table);
    }

    var tbody = $("games").tBodies[0];
    tbody.innerHTML = "";
    st.games.forEach(function (g) {
      var tr = document.createElement("tr");
      var td = document.createElement("td");
      var a = document.createElement("a");
      a.href = "/games/" + g.game_id;
      a.textContent = "#" + g.game_id;
      td.appendChild(a);
      tr.appendChild(td);
      cell(tr, g.opponent_label || g.opponent);
      cell(tr, g.board);
      cell(tr, g.result, "result-" + g.result);
      cell(tr, g.reason || "");
      cell(tr, g.finished || "");
      tbody.appendChild(tr);
    });
    var wins = st.games.filter(function (g) { return g.result === "win"; }).length;
    var draws = st.games.filter(function (g) { return g.result === "draw"; }).length;
    $("game-count").textContent = st.games.length ? "(" + st.games.length + ": " + wins + " won, " + draws + " drawn, " + (st.games.length - wins - draws) + " lost)" : "";
    $("no-games").style.display = st.games.length ? "none" : "";
  }

  function poll() {
    fetch("/submissions/" + id + "/status.json", { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (st) {
        if (st) { render(st); }
        if (!st || (st.status !== "failed" && st.status !== "disabled" && st.status !== "superseded")) {
          setTimeout(poll, 2000);
        }
      })
      .catch(function () { setTimeout(poll, 5000); });
  }
  render(initial);
  setTimeout(poll, 2000);
})();
