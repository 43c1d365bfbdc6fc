import { useRef } from "react";

/**
 * A window splitter (WAI-ARIA `separator` pattern, focusable): dragging it or pressing the arrow
 * keys (Shift: 10× the step), Home or End changes the size of the panel it controls, in pixels
 * between `min` and `max`. `invert` is for a panel after the splitter (dragging right shrinks it).
 */
export function Splitter(props: {
  /** Accessible name, e.g. "Resize the media panel". */
  label: string;
  orientation: "vertical" | "horizontal";
  value: number;
  min: number;
  max: number;
  invert?: boolean;
  className?: string;
  onChange: (px: number) => void;
}) {
  const start = useRef<{ at: number; value: number } | null>(null);
  const clamp = (v: number) => Math.round(Math.min(props.max, Math.max(props.min, v)));
  const pos = (e: React.PointerEvent) => (props.orientation === "vertical" ? e.clientX : e.clientY);
  const sign = props.invert ? -1 : 1;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a focusable splitter is a separator with a value, not an <hr>
    <div
      role="separator"
      tabIndex={0}
      aria-label={props.label}
      aria-orientation={props.orientation}
      aria-valuenow={Math.round(props.value)}
      aria-valuemin={Math.round(props.min)}
      aria-valuemax={Math.round(props.max)}
      className={`splitter ${props.orientation}${props.className ? ` ${props.className}` : ""}`}
      onPointerDown={(e) => {
        if (e.button !== 0) return;
        e.currentTarget.setPointerCapture(e.pointerId);
        start.current = { at: pos(e), value: props.value };
      }}
      onPointerMove={(e) => {
        if (start.current) props.onChange(clamp(start.current.value + sign * (pos(e) - start.current.at)));
      }}
      onPointerUp={() => {
        start.current = null;
      }}
      onPointerCancel={() => {
        start.current = null;
      }}
      onKeyDown={(e) => {
        const step = e.shiftKey ? 80 : 8;
        const grow = props.orientation === "vertical" ? ["ArrowRight"] : ["ArrowDown"];
        const shrink = props.orientation === "vertical" ? ["ArrowLeft"] : ["ArrowUp"];
        let next: number | null = null;
        if (grow.includes(e.key)) next = props.value + sign * step;
        else if (shrink.includes(e.key)) next = props.value - sign * step;
        else if (e.key === "Home") next = props.min;
        else if (e.key === "End") next = props.max;
        if (next === null) return;
        e.preventDefault();
        e.stopPropagation();
        props.onChange(clamp(next));
      }}
    />
  );
}
