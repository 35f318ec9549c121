"""The style sheet and script of ``samples.html`` (:mod:`negkit.commands.samples_page`): filters, search and a
table drawn one page of rows at a time from the JSON in the page. Plain JavaScript, no network."""

SAMPLES_CSS = """
body{max-width:1600px}
#controls{display:flex;flex-wrap:wrap;gap:.8rem;align-items:center;margin:.6rem 0;position:sticky;top:0;
background:#fff;padding:.4rem 0;border-bottom:1px solid #ddd;z-index:1}
#controls label{font-size:.9rem}#controls select,#controls input{margin-left:.3rem;font-size:.9rem}
#controls input{width:18rem}#count{color:#555;font-size:.9rem}
#samples{border-collapse:collapse;width:100%;font-size:.85rem}
#samples th,#samples td{border-bottom:1px solid #e4e4e4;padding:.25rem .4rem;text-align:left;vertical-align:top}
#samples tbody tr.item{cursor:pointer}#samples tbody tr.item:hover{background:#f4f7fb}
#samples td.prompt{white-space:pre-wrap;max-width:42rem;color:#333}
#samples td.scores{max-width:14rem;color:#444;font-size:.8rem}
#samples td.right{color:#1a7f37;font-weight:bold}#samples td.wrong{color:#c62828;font-weight:bold}
#samples td.hash{color:#888;font-style:italic}
#samples tr.detail td{background:#fafafa}#samples tr.detail pre{white-space:pre-wrap;margin:.3rem 0;font-size:.8rem}
#pager{margin:.8rem 0}#pager button{font-size:.9rem}
"""

SAMPLES_SCRIPT = r"""
(function () {
  "use strict";
  var PAGE = 100;
  var data = JSON.parse(document.getElementById("negkit-samples").textContent);
  var items = [];
  data.tasks.forEach(function (task, t) {
    task.rows.forEach(function (row) { items.push({t: t, r: row}); });
  });
  var byId = function (id) { return document.getElementById(id); };
  var taskSelect = byId("task"), correctSelect = byId("correct"), groupSelect = byId("group");
  var search = byId("search"), body = document.querySelector("#samples tbody");
  var shown = items, page = 0;

  function escape(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function cut(text, length) { return text.length > length ? text.slice(0, length) + " …" : text; }
  // what the search box matches: the id, a prompt the run holds (not a hash) and the rest of the record; made once
  function text(item) {
    if (item.s === undefined) {
      var row = item.r;
      item.s = (row[0] + "\n" + (row[6] ? row[5] : "") + "\n" + row[7]).toLowerCase();
    }
    return item.s;
  }

  function fillGroups() {
    var chosen = taskSelect.value, seen = {}, values = [];
    data.tasks.forEach(function (task) {
      if (chosen && task.task !== chosen) { return; }
      task.rows.forEach(function (row) {
        if (row[1] !== "" && !seen[row[1]]) { seen[row[1]] = true; values.push(row[1]); }
      });
    });
    values.sort();
    var keep = groupSelect.value;
    groupSelect.innerHTML = '<option value="">all groups</option>' + values.map(function (value) {
      return "<option>" + escape(value) + "</option>";
    }).join("");
    groupSelect.value = seen[keep] ? keep : "";
  }

  function filter() {
    var chosen = taskSelect.value, correct = correctSelect.value, group = groupSelect.value;
    var words = search.value.toLowerCase().trim();
    shown = items.filter(function (item) {
      var row = item.r;
      if (chosen && data.tasks[item.t].task !== chosen) { return false; }
      if (group && row[1] !== group) { return false; }
      if (correct === "1" && row[4] !== 1) { return false; }
      if (correct === "0" && row[4] !== 0) { return false; }
      if (correct === "n" && row[4] !== null) { return false; }
      return !words || text(item).indexOf(words) !== -1;
    });
    page = 0;
    draw();
  }

  function draw() {
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(page, pages - 1);
    var html = [];
    shown.slice(page * PAGE, (page + 1) * PAGE).forEach(function (item, index) {
      var row = item.r, right = row[4] === 1 ? "right" : row[4] === 0 ? "wrong" : "";
      html.push('<tr class="item" data-index="' + (page * PAGE + index) + '"><td>' + escape(data.tasks[item.t].task) +
        "</td><td>" + escape(row[0]) + "</td><td>" + escape(row[1]) + "</td><td>" + escape(cut(row[2], 80)) +
        "</td><td>" + escape(cut(row[3], 80)) + '</td><td class="' + right + '">' +
        (row[4] === 1 ? "&#10003;" : row[4] === 0 ? "&#10007;" : "–") + '</td><td class="scores">' +
        escape(cut(row[8], 90)) + '</td><td class="prompt' +
        (row[6] ? "" : " hash") + '">' + escape(cut(row[5], 240)) + "</td></tr>");
    });
    body.innerHTML = html.join("");
    byId("count").textContent = shown.length.toLocaleString("en") + " of " + items.length.toLocaleString("en") +
      " items";
    byId("page").textContent = "page " + (page + 1) + " of " + pages;
    byId("previous").disabled = page === 0;
    byId("next").disabled = page >= pages - 1;
  }

  function open(tr) {
    var next = tr.nextElementSibling;
    if (next && next.classList.contains("detail")) { next.remove(); return; }
    var item = shown[Number(tr.getAttribute("data-index"))], row = item.r;
    var record = JSON.stringify(JSON.parse(row[7]), null, 2);
    var detail = document.createElement("tr");
    detail.className = "detail";
    detail.innerHTML = '<td colspan="8"><b>gold</b> ' + escape(row[2]) + " &nbsp; <b>prediction</b> " +
      escape(row[3]) + '<pre class="' + (row[6] ? "" : "hash") + '">' + escape(row[5]) + "</pre><pre>" +
      escape(record) + "</pre></td>";
    tr.parentNode.insertBefore(detail, tr.nextSibling);
  }

  var timer = null;
  search.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(filter, 150); });
  taskSelect.addEventListener("change", function () { fillGroups(); filter(); });
  correctSelect.addEventListener("change", filter);
  groupSelect.addEventListener("change", filter);
  byId("previous").addEventListener("click", function () { page -= 1; draw(); });
  byId("next").addEventListener("click", function () { page += 1; draw(); });
  body.addEventListener("click", function (event) {
    var tr = event.target.closest("tr.item");
    if (tr) { open(tr); }
  });
  // for scripts and tests: filter without the controls (search is applied at once)
  window.negkitSamples = {
    set: function (task, correct, group, words) {
      taskSelect.value = task || ""; fillGroups(); correctSelect.value = correct || "";
      groupSelect.value = group || ""; search.value = words || ""; filter();
      return {shown: shown.length, total: items.length, rows: body.querySelectorAll("tr.item").length};
    }
  };
  fillGroups();
  filter();
})();
"""
