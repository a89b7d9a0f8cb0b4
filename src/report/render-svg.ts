/**
 * vega-lite spec → SVG text, headless: vega-lite compiles to a vega spec, a vega View with no
 * renderer runs the dataflow and View.toSVG() writes the scenegraph as SVG (no canvas, no DOM).
 */
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { VlSpec } from './charts.js';

export async function renderSvg(spec: VlSpec): Promise<string> {
  const vg = compile(spec as unknown as TopLevelSpec).spec;
  // Text is measured by vega's built-in estimate (no canvas in Node); the fonts in CONFIG are
  // common ones so the browser's real widths stay close.
  const view = new View(parse(vg), { renderer: 'none', logLevel: 0 });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
