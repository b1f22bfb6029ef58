// gpucost dashboard: draws the charts whose data the server put in
// <script type="application/json"> blocks. It only draws: every amount a person reads as text
// comes formatted by the server.
(function () {
  'use strict';

  var charts = {};
  // window.gpucost lets tests (and curious people) ask each chart what it drew.
  window.gpucost = {
    charts: charts,
    points: function (id) { return charts[id] ? charts[id].points() : -1; }
  };

  function compact(v, unit) {
    var a = Math.abs(v), s;
    if (a >= 1e6) s = (v / 1e6).toFixed(1) + 'M';
    else if (a >= 1e3) s = (v / 1e3).toFixed(a >= 1e4 ? 0 : 1) + 'k';
    else s = String(Math.round(v * 100) / 100);
    return unit === '$' ? '$' + s : s + (unit || '');
  }

  function count(arrays) {
    var n = 0;
    arrays.forEach(function (a) { a.forEach(function (v) { if (v !== null && v !== undefined) n++; }); });
    return n;
  }

  // line draws a time series chart with uPlot: bars, lines or dashed lines.
  function line(el, d) {
    var series = [{}].concat(d.series.map(function (s) {
      var bars = s.style === 'bars';
      return {
        label: s.label,
        stroke: s.color,
        width: bars ? 1 : 2,
        dash: s.style === 'dash' ? [6, 4] : undefined,
        fill: bars ? s.color + 'aa' : undefined,
        paths: bars ? uPlot.paths.bars({ size: [0.7, 40] }) : undefined,
        points: { show: !bars },
        value: function (u, v, si, i) {
          if (i === null || i === undefined || v === null) return '—';
          return (s.labels && s.labels[i]) || compact(v, d.unit);
        }
      };
    }));
    var opts = {
      width: Math.max(el.clientWidth, 300),
      height: 300,
      series: series,
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'); },
      scales: { x: { time: true, range: function (u, min, max) { return [min - 43200, max + 43200]; } }, y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; } } },
      axes: [{}, { size: 64, values: function (u, vals) { return vals.map(function (v) { return compact(v, d.unit); }); } }]
    };
    var u = new uPlot(opts, [d.x].concat(d.series.map(function (s) { return s.values; })), el);
    return {
      kind: 'uplot',
      resize: function () { u.setSize({ width: Math.max(el.clientWidth, 300), height: 300 }); },
      points: function () { return count(u.data.slice(1)); }
    };
  }

  function echartsChart(el, option) {
    var c = echarts.init(el, null, { renderer: 'canvas' });
    c.setOption(option);
    return {
      kind: 'echarts',
      resize: function () { c.resize(); },
      points: function () {
        return c.getOption().series.reduce(function (n, s) { return n + s.data.length; }, 0);
      }
    };
  }

  // heatmap draws hourly values per row with ECharts; blank cells had no data.
  function heatmap(el, d) {
    el.style.height = Math.max(300, Math.min(d.y.length, 20) * 22 + 110) + 'px'; // 20 rows' height at most: a page stays within three screens
    return echartsChart(el, {
      animation: false,
      tooltip: {
        renderMode: 'richText',
        formatter: function (p) { return d.y[p.value[1]] + '\n' + d.x[p.value[0]] + ': ' + p.value[2] + d.unit; }
      },
      grid: { left: 8, right: 16, top: 8, bottom: 70, containLabel: true },
      xAxis: { type: 'category', data: d.x, splitArea: { show: false } },
      yAxis: { type: 'category', data: d.y, inverse: true },
      visualMap: {
        min: d.min, max: d.max, calculable: false, orient: 'horizontal', left: 'center', bottom: 0,
        text: [d.max + d.unit, d.min + d.unit], inRange: { color: ['#f1f5fb', '#9ec1f0', '#2f6fdf', '#173a7a'] }
      },
      series: [{ type: 'heatmap', data: d.cells, progressive: 0 }]
    });
  }

  // stacked draws each group's daily amounts as stacked bars with ECharts.
  function stacked(el, d) {
    return echartsChart(el, {
      animation: false,
      legend: { type: 'scroll', top: 0 },
      tooltip: {
        trigger: 'item', renderMode: 'richText',
        formatter: function (p) { return p.seriesName + ', ' + d.x[p.dataIndex] + ': ' + d.series[p.seriesIndex].labels[p.dataIndex]; }
      },
      grid: { left: 8, right: 16, top: 36, bottom: 8, containLabel: true },
      xAxis: { type: 'category', data: d.x },
      yAxis: { type: 'value', axisLabel: { formatter: function (v) { return compact(v, d.unit); } } },
      series: d.series.map(function (s) {
        return { name: s.name, type: 'bar', stack: 'cost', data: s.values, emphasis: { focus: 'series' } };
      })
    });
  }

  var draw = { line: line, heatmap: heatmap, stacked: stacked };

  function init() {
    document.querySelectorAll('select[data-autosubmit]').forEach(function (s) {
      s.addEventListener('change', function () { s.form.submit(); });
    });
    document.querySelectorAll('[data-chart]').forEach(function (el) {
      var src = document.getElementById(el.dataset.src);
      var kind = draw[el.dataset.chart];
      if (!src || !kind) {
        console.error('gpucost: chart ' + el.dataset.src + ' has no data or an unknown kind ' + el.dataset.chart);
        return;
      }
      charts[el.dataset.src] = kind(el, JSON.parse(src.textContent));
    });
    var pending;
    window.addEventListener('resize', function () {
      clearTimeout(pending);
      pending = setTimeout(function () {
        Object.keys(charts).forEach(function (k) { charts[k].resize(); });
      }, 150);
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
