/**
 * A region of the window whose render time the perf probe sums
 * (`spent["render <id>"]`, lib/perf.ts): where a slow interaction's script
 * time goes. React reports it only in a profiling build
 * (`ARBOR_UI_PROFILE=1 npm run build`); in a normal build the Profiler does
 * nothing.
 */
import { Profiler, type ReactNode } from "react";
import { recordRender } from "../lib/perf";

export function PerfRegion({ id, children }: { id: string; children: ReactNode }) {
  return (
    <Profiler id={id} onRender={onRender}>
      {children}
    </Profiler>
  );
}

function onRender(id: string, _phase: string, actualMs: number): void {
  recordRender(id, actualMs);
}
