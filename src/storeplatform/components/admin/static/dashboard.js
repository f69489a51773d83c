/* The dashboard's charts: each <script type="application/json" class="dash-chart-data"> holds a
   chart's numbers (the page's own data, never run: the admin's CSP allows no inline script) and
   names its canvas; Chart.js (vendor/, served by the site) draws it. The same numbers are in the
   table beside each chart, for screen readers and for a browser without this script. */
(function () {
  "use strict";
  var COLORS = ["#1f5fbf", "#17753a", "#a35b00", "#7b3fb3", "#b3261e", "#0f7c86", "#5b6470"];
  var SOFT = { "#1f5fbf": "rgba(31, 95, 191, .75)", "#17753a": "rgba(23, 117, 58, .75)",
               "#d6dae0": "#d6dae0" };

  function colorOf(ds, i) {
    return ds.color || COLORS[i % COLORS.length];
  }

  function dataset(ds, i, spec, horizontal) {
    var color = colorOf(ds, i);
    var out = { label: ds.label, data: ds.data, borderColor: color, display: ds.display };
    var type = ds.type || spec.type;
    if (ds.type) { out.type = ds.type; }
    if (type === "line") {
      out.backgroundColor = color;
      out.borderWidth = 1.5;
      out.pointRadius = ds.data.length > 20 ? 1.5 : 2.5;
      out.tension = 0; // straight between days: a curve would invent values between them
      out.order = 0; // drawn over the bars
    } else if (type === "doughnut") {
      out.backgroundColor = ds.colors || COLORS;
      out.borderColor = "#fff";
    } else {
      out.backgroundColor = SOFT[color] || color;
      out.borderWidth = 0;
      out.borderRadius = 3;
      out.order = 1;
    }
    if (ds.stack) { out.stack = ds.stack; }
    if (type !== "doughnut") {
      out[horizontal ? "xAxisID" : "yAxisID"] = ds.axis || "count";
    }
    return out;
  }

  function scales(spec, datasets, horizontal) {
    var opts = spec.options || {};
    var used = [];
    datasets.forEach(function (ds) {
      var id = ds[horizontal ? "xAxisID" : "yAxisID"];
      if (used.indexOf(id) < 0) { used.push(id); }
    });
    var out = {};
    out[horizontal ? "y" : "x"] = { stacked: !!opts.stacked, grid: { display: false },
                                   ticks: { autoSkip: true, maxRotation: 0 } };
    used.forEach(function (id, n) {
      out[id] = {
        axis: horizontal ? "x" : "y",
        position: horizontal ? "bottom" : (n === 0 ? "left" : "right"),
        beginAtZero: true,
        stacked: !!opts.stacked,
        grid: { drawOnChartArea: n === 0 },
        ticks: id === "count" ? { precision: 0 } : {},
        title: { display: used.length > 1, text: datasets.filter(function (ds) {
          return ds[horizontal ? "xAxisID" : "yAxisID"] === id;
        })[0].label }
      };
    });
    return out;
  }

  function draw(block) {
    var canvas = document.getElementById(block.getAttribute("data-canvas"));
    if (!canvas || !window.Chart) { return; }
    var spec = JSON.parse(block.textContent);
    var horizontal = !!(spec.options && spec.options.horizontal);
    var datasets = spec.datasets.map(function (ds, i) { return dataset(ds, i, spec, horizontal); });
    var config = {
      type: spec.type,
      data: { labels: spec.labels, datasets: datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: spec.type === "doughnut" ? { mode: "nearest", intersect: true }
                                              : { mode: "index", intersect: false },
        plugins: {
          legend: { position: "bottom", labels: { boxWidth: 12, boxHeight: 12 } },
          tooltip: { callbacks: { label: function (ctx) {
            var shown = ctx.dataset.display;
            var value = shown ? shown[ctx.dataIndex] : ctx.formattedValue;
            return (ctx.dataset.label ? ctx.dataset.label + ": " : "") + value;
          } } }
        }
      }
    };
    if (spec.type === "doughnut") {
      config.options.cutout = "60%";
      config.options.plugins.legend.position = "right";
    } else {
      config.options.indexAxis = horizontal ? "y" : "x";
      config.options.scales = scales(spec, datasets, horizontal);
    }
    new window.Chart(canvas, config);
    canvas.setAttribute("data-drawn", "true");
  }

  function start() {
    if (!window.Chart) { return; }
    window.Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
    window.Chart.defaults.color = "#5b6470";
    window.Chart.defaults.borderColor = "#e6e9ee";
    Array.prototype.forEach.call(document.querySelectorAll("script.dash-chart-data"), draw);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
