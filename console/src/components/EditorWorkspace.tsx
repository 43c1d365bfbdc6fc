import { type ReactNode, useLayoutEffect, useRef, useState } from "react";
import { Splitter } from "./Splitter";

/** Where the panel sizes are kept between visits (this browser only). */
const SIZES_KEY = "cutroom.editor.panels";
/** Below this window width the panels stack (phone, narrow tablet), pixels. */
const STACK_BELOW = 1024;
/** Below this window height the workspace keeps a usable height and the page scrolls instead, pixels. */
const MIN_HEIGHT = 480;

interface Sizes {
  /** Width of the side panel (media, tools, assistant), pixels. */
  side: number;
  /** Width of the inspector, pixels. */
  inspector: number;
  /** Height of the upper row (side, preview, inspector), pixels. */
  top: number;
}

function readSizes(): Sizes | null {
  try {
    const s = JSON.parse(localStorage.getItem(SIZES_KEY) ?? "null") as Sizes | null;
    return s && [s.side, s.inspector, s.top].every((n) => Number.isFinite(n)) ? s : null;
  } catch {
    return null;
  }
}

/** The default sizes for a window `width` × workspace `height`. */
function defaultSizes(width: number, height: number): Sizes {
  return {
    side: Math.round(Math.min(380, Math.max(280, width * 0.21))),
    inspector: Math.round(Math.min(420, Math.max(280, width * 0.24))),
    top: Math.round(height * 0.56),
  };
}

/**
 * The editor's working area, filling the window below the page heading: side panel, preview and
 * inspector side by side above the timeline, so that all three show without scrolling the page
 * (1366×768 and up). The panels are resized by splitters (mouse or keyboard; remembered in this
 * browser) and each scrolls inside itself. On a narrow window the panels stack: preview, then the
 * timeline with its toolbar, then the inspector and the side panel.
 */
export function EditorWorkspace(props: {
  side: ReactNode;
  preview: ReactNode;
  inspector: ReactNode;
  timeline: ReactNode;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ width: window.innerWidth, height: 0 });
  const [sizes, setSizes] = useState<Sizes | null>(readSizes);

  useLayoutEffect(() => {
    const measure = () => {
      const el = box.current;
      if (!el) return;
      const top = el.getBoundingClientRect().top + window.scrollY;
      setView({ width: window.innerWidth, height: Math.max(MIN_HEIGHT, window.innerHeight - top - 8) });
    };
    measure();
    window.addEventListener("resize", measure);
    return () => window.removeEventListener("resize", measure);
  }, []);

  const stacked = view.width < STACK_BELOW;
  const fallback = defaultSizes(view.width, view.height);
  const s = sizes ?? fallback;
  const change = (key: keyof Sizes) => (px: number) => {
    const next = { ...s, [key]: px };
    setSizes(next);
    try {
      localStorage.setItem(SIZES_KEY, JSON.stringify(next));
    } catch {
      // Not remembered (storage refused); the size still applies.
    }
  };
  // The preview keeps at least 320 px; the top row and the timeline at least 200 px each.
  const topMax = Math.max(200, view.height - 200);
  const top = Math.min(s.top, topMax);
  const style = stacked
    ? undefined
    : ({
        height: view.height || undefined,
        "--side-w": `${s.side}px`,
        "--inspector-w": `${s.inspector}px`,
        "--top-h": `${top}px`,
      } as React.CSSProperties);
  return (
    <div ref={box} className={`workspace${stacked ? " stacked" : ""}`} style={style}>
      <div className="ws-side">{props.side}</div>
      {!stacked && (
        <Splitter
          label="Resize the side panel"
          orientation="vertical"
          className="ws-split-a"
          value={s.side}
          min={200}
          max={Math.max(200, view.width - s.inspector - 340)}
          onChange={change("side")}
        />
      )}
      <div className="ws-preview">{props.preview}</div>
      {!stacked && (
        <Splitter
          label="Resize the inspector"
          orientation="vertical"
          className="ws-split-b"
          value={s.inspector}
          min={240}
          max={Math.max(240, view.width - s.side - 340)}
          invert
          onChange={change("inspector")}
        />
      )}
      <div className="ws-inspector">{props.inspector}</div>
      {!stacked && (
        <Splitter
          label="Resize the timeline"
          orientation="horizontal"
          className="ws-split-h"
          value={top}
          min={200}
          max={topMax}
          onChange={change("top")}
        />
      )}
      <div className="ws-bottom">{props.timeline}</div>
    </div>
  );
}
