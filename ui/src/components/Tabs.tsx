/**
 * A strip of tabs choosing what a view shows: the session's centre (an agent
 * or the timeline) and an agent's (its output or its changes) use the same one.
 */
import type { ReactNode } from "react";

export interface TabSpec<T extends string> {
  value: T;
  testId: string;
  title?: string;
  children: ReactNode;
}

export function Tabs<T extends string>({
  label,
  value,
  onSelect,
  tabs,
}: {
  label: string;
  value: T;
  onSelect: (value: T) => void;
  tabs: readonly TabSpec<T>[];
}) {
  return (
    <div className="output-tabs" role="tablist" aria-label={label}>
      {tabs.map((t) => (
        <button
          key={t.value}
          type="button"
          role="tab"
          className="output-tab"
          data-testid={t.testId}
          aria-selected={value === t.value}
          title={t.title}
          onClick={() => onSelect(t.value)}
        >
          {t.children}
        </button>
      ))}
    </div>
  );
}
