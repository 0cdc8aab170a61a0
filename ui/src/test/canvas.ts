/**
 * jsdom has no canvas: a recording 2D context instead. Each canvas gets its
 * own; a frame starts with clearRect over the canvas, which empties the
 * record, so a test reads what the last frame painted: filled rectangles
 * (with the fill they had), outlines and text.
 */
import { vi } from "vitest";

export interface PaintedRect {
  x: number;
  y: number;
  w: number;
  h: number;
  fill: unknown;
}

export interface Painted {
  rects: PaintedRect[];
  strokes: PaintedRect[];
  texts: { text: string; x: number; y: number }[];
  frames: number;
}

/** Installs the recording context (call in beforeEach: mocks are restored after each test). */
export function recordCanvases(): (canvas: HTMLCanvasElement) => Painted {
  const records = new WeakMap<HTMLCanvasElement, Painted>();
  const contexts = new WeakMap<HTMLCanvasElement, object>();
  const recordOf = (canvas: HTMLCanvasElement) => {
    let r = records.get(canvas);
    if (!r) {
      r = { rects: [], strokes: [], texts: [], frames: 0 };
      records.set(canvas, r);
    }
    return r;
  };
  vi.spyOn(HTMLCanvasElement.prototype, "getContext").mockImplementation(function (this: HTMLCanvasElement) {
    let ctx = contexts.get(this);
    if (!ctx) {
      const r = recordOf(this);
      const noop = () => undefined;
      ctx = {
        fillStyle: "#000",
        strokeStyle: "#000",
        lineWidth: 1,
        globalAlpha: 1,
        font: "",
        textBaseline: "alphabetic",
        setTransform: noop,
        beginPath: noop,
        moveTo: noop,
        lineTo: noop,
        arc: noop,
        fill: noop,
        stroke: noop,
        createPattern: () => ({ pattern: true }),
        clearRect(this: { fillStyle: unknown }, x: number, y: number) {
          if (x === 0 && y === 0) {
            r.rects = [];
            r.strokes = [];
            r.texts = [];
            r.frames += 1;
          }
        },
        fillRect(this: { fillStyle: unknown }, x: number, y: number, w: number, h: number) {
          r.rects.push({ x, y, w, h, fill: this.fillStyle });
        },
        strokeRect(this: { strokeStyle: unknown }, x: number, y: number, w: number, h: number) {
          r.strokes.push({ x, y, w, h, fill: this.strokeStyle });
        },
        fillText(text: string, x: number, y: number) {
          r.texts.push({ text, x, y });
        },
      };
      contexts.set(this, ctx);
    }
    return ctx as unknown as CanvasRenderingContext2D;
  } as unknown as typeof HTMLCanvasElement.prototype.getContext);
  return recordOf;
}
