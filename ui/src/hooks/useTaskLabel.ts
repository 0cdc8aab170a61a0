/**
 * The label the backend would give a delegated task, for the Delegate… form's
 * description suggestion: asked for once typing pauses (DESCRIBE_DEBOUNCE_MS),
 * and an answer for an older prompt never replaces a newer one's.
 */
import { useEffect, useState } from "react";
import { DESCRIBE_DEBOUNCE_MS, describeTask } from "../ipc/delegate";

export function useTaskLabel(prompt: string): string {
  const text = prompt.trim();
  const [label, setLabel] = useState("");
  useEffect(() => {
    if (!text) return;
    let live = true;
    const timer = setTimeout(() => {
      void describeTask(text).then((l) => {
        if (live && l !== null) setLabel(l);
      });
    }, DESCRIBE_DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [text]);
  // An emptied prompt has nothing to suggest; the last label waits for the next answer meanwhile.
  return text ? label : "";
}
