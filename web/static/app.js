// Trawl dashboard enhancements: copy buttons and the usage chart (uPlot). Pages work without it.
document.addEventListener('click', async (e) => {
  const b = e.target.closest('[data-copy]');
  if (!b) return;
  const text = document.getElementById(b.dataset.copy)?.textContent ?? '';
  try {
    await navigator.clipboard.writeText(text.trim());
    b.textContent = 'Copied';
  } catch {
    b.textContent = 'Select and copy';
  }
});
// Forms that undo something ask first (a script handler: the page's CSP allows no inline ones).
document.addEventListener('submit', (e) => {
  const message = e.target.dataset?.confirm;
  if (message && !window.confirm(message)) e.preventDefault();
});
// Charts: each <script type="application/json" data-chart-for="ID"> is drawn into #ID with uPlot.
for (const data of document.querySelectorAll('script[data-chart-for]')) {
  const el = document.getElementById(data.dataset.chartFor);
  if (!el || !window.uPlot) continue;
  const d = JSON.parse(data.textContent);
  const xs = d.days ? d.days.map((s) => Date.parse(s + 'T00:00:00Z') / 1000) : d.times.map((s) => Date.parse(s) / 1000);
  // One point (or all at one time): uPlot widens an empty time span by 86400 / ms, which in
  // seconds is 86,400,000 s (the axis ran from 2027 to 2029). A day either side of a day, an hour
  // either side of a run, instead.
  const pad = d.days ? 86400 : 3600;
  const one = xs.length > 0 && xs.every((x) => x === xs[0]);
  const xRange = (u, min, max) => (one ? [xs[0] - pad, xs[0] + pad] : [min, max]);
  const opts = {
    width: Math.max(280, el.clientWidth - 16),
    height: 240,
    title: d.title,
    scales: { x: { time: true, range: xRange }, y: d.counts ? { range: (u, min, max) => [0, Math.max(1, max)] } : {} },
    series: [{}].concat(
      d.series.map((s, i) => ({
        label: s.label,
        stroke: ['#1d4ed8', '#047857', '#b91c1c'][i % 3],
        width: 2,
        points: { show: true },
      })),
    ),
    // Counts are whole numbers: no 0.2 ticks.
    axes: [
      {},
      d.counts
        ? { label: d.axis, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 50000, 100000] }
        : { label: d.axis },
    ],
  };
  el.textContent = '';
  // The x range drawn, in seconds (what the axis shows, for tests and for people reading the DOM).
  opts.hooks = {
    setScale: [
      (u, key) => {
        if (key === 'x') el.dataset.xRange = `${u.scales.x.min},${u.scales.x.max}`;
      },
    ],
  };
  new uPlot(opts, [xs].concat(d.series.map((s) => s.values)), el);
}
// A table marked data-live (the Jobs page while a job runs) refreshes its rows in place from the
// same origin: progress moves without a reload, and the asking stops once nothing runs.
for (const table of document.querySelectorAll('table[data-live]')) {
  const body = table.querySelector('tbody');
  const every = Number(table.dataset.every) || 2000;
  const tick = async () => {
    try {
      const res = await fetch(table.dataset.live, {
        headers: { accept: 'application/json' },
        credentials: 'same-origin',
      });
      if (!res.ok || !(res.headers.get('content-type') || '').includes('json')) return; // signed out: leave the page be
      const d = await res.json();
      body.innerHTML = d.rows;
      table.dataset.refreshed = String(Number(table.dataset.refreshed || 0) + 1);
      if (d.live) setTimeout(tick, every);
      else delete table.dataset.live;
    } catch {
      setTimeout(tick, every * 2);
    }
  };
  setTimeout(tick, every);
}
