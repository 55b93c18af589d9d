/** uPlot wrappers (loaded on demand): a line chart over years and a bar chart over labels. */
const PALETTE = ["#1d4ed8", "#b91c1c", "#047857", "#7c3aed", "#b45309"];

export async function lineChart(
  el: HTMLElement,
  title: string,
  x: number[],
  series: Record<string, (number | null)[]>,
): Promise<void> {
  const { default: uPlot } = await import("uplot");
  const names = Object.keys(series);
  new uPlot(
    {
      title,
      width: Math.min(640, el.clientWidth || 640),
      height: 260,
      // Whole years, padded by one: a single year otherwise spans 0..4000.
      scales: { x: { time: false, range: (_u, min, max) => [min - 1, max + 1] } },
      axes: [{ values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : "")) }, { size: 70 }],
      series: [
        { label: "year" },
        ...names.map((n, i) => ({ label: n, stroke: PALETTE[i % PALETTE.length], width: 2 })),
      ],
    },
    [x, ...names.map((n) => series[n] as (number | null)[])],
    el,
  );
}

export async function barChart(el: HTMLElement, title: string, labels: string[], values: number[]): Promise<void> {
  const { default: uPlot } = await import("uplot");
  new uPlot(
    {
      title,
      width: Math.min(640, el.clientWidth || 640),
      height: 260,
      // Bars grow from zero.
      scales: {
        x: { time: false, range: [-0.5, labels.length - 0.5] },
        y: { range: (_u, _min, max) => [0, max * 1.1] },
      },
      // One tick per bar, its label slanted so long feature names do not overlap.
      axes: [
        {
          splits: () => labels.map((_, i) => i),
          values: (_u, ticks) => ticks.map((t) => labels[t] ?? ""),
          rotate: -40,
          size: 110,
        },
        { size: 70 },
      ],
      series: [
        {},
        {
          label: title,
          stroke: PALETTE[0],
          fill: `${PALETTE[0]}88`,
          paths: uPlot.paths.bars?.({ size: [0.6] }),
          points: { show: false },
        },
      ],
    },
    [labels.map((_, i) => i), values],
    el,
  );
}
