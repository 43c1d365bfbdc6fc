import { type ReactNode, useId, useRef } from "react";

/**
 * Tabs (WAI-ARIA tabs pattern: arrow keys, Home and End move between tabs, which show at once).
 * A hidden panel is not rendered (a tool re-rendered with every playhead move costs input
 * latency on a long timeline) unless its tab says `keepMounted` (a conversation that streams).
 */
export function PanelTabs(props: {
  label: string;
  tabs: ReadonlyArray<{ id: string; label: string; panel: ReactNode; keepMounted?: boolean }>;
  current: string;
  onChange: (id: string) => void;
}) {
  const base = useId();
  const list = useRef<HTMLDivElement>(null);
  const index = Math.max(
    0,
    props.tabs.findIndex((t) => t.id === props.current),
  );
  const go = (i: number) => {
    const n = props.tabs.length;
    const t = props.tabs[(i + n) % n];
    if (!t) return;
    props.onChange(t.id);
    list.current?.querySelectorAll<HTMLElement>('[role="tab"]')[(i + n) % n]?.focus();
  };
  return (
    <div className="panel-tabs">
      <div
        role="tablist"
        aria-label={props.label}
        ref={list}
        onKeyDown={(e) => {
          const move: Record<string, number> = {
            ArrowRight: index + 1,
            ArrowLeft: index - 1,
            Home: 0,
            End: -1,
          };
          const to = move[e.key];
          if (to === undefined) return;
          e.preventDefault();
          e.stopPropagation();
          go(to);
        }}
      >
        {props.tabs.map((t, i) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`${base}-tab-${t.id}`}
            aria-selected={i === index}
            aria-controls={`${base}-panel-${t.id}`}
            tabIndex={i === index ? 0 : -1}
            onClick={() => props.onChange(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      {props.tabs.map((t, i) => (
        <div
          key={t.id}
          role="tabpanel"
          id={`${base}-panel-${t.id}`}
          aria-labelledby={`${base}-tab-${t.id}`}
          hidden={i !== index}
          className="tab-panel"
        >
          {i === index || t.keepMounted ? t.panel : null}
        </div>
      ))}
    </div>
  );
}
