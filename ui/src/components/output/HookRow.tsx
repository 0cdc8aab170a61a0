/**
 * One hook run in an agent's output: which hook (event and command), what it
 * decided and why, its exit code and time, and the file it came from (on
 * hover and unfolded). A refusal or a failure stands out; the rest is a quiet line.
 */
import { memo, useState } from "react";
import type { HookRan } from "../../bindings";
import { decisionWords, hookExit, hookSource, hookTone } from "../../lib/hooks";
import { IconChevron } from "../icons";

export const HookRow = memo(function HookRow({ ran }: { ran: HookRan }) {
  const [open, setOpen] = useState(false);
  const tone = hookTone(ran.decision);
  return (
    <div className={`hook-run ${tone}${open ? " open" : ""}`} data-testid="hook-run" data-event={ran.hook_event} data-decision={ran.decision}>
      <button type="button" className="hook-head" aria-expanded={open} onClick={() => setOpen(!open)} title={ran.source}>
        <IconChevron size={11} />
        <span className="hook-event">{ran.hook_event} hook</span>
        <code className="mono hook-command">{ran.command}</code>
        <span className="hook-decision">{decisionWords(ran.decision)}</span>
        {ran.message ? <span className="hook-message">{ran.message}</span> : null}
      </button>
      {open ? (
        <div className="hook-body">
          <div>
            <span className="faint">From </span>
            <code className="mono">{hookSource(ran.source)}</code>
            <span className="faint"> ({ran.origin === "user" ? "your own settings" : "the workspace's, trusted"})</span>
            {ran.matcher ? (
              <>
                <span className="faint"> · matcher </span>
                <code className="mono">{ran.matcher}</code>
              </>
            ) : null}
          </div>
          <div className="faint">{hookExit(ran)}</div>
          {ran.message ? <pre className="hook-full">{ran.message}</pre> : null}
        </div>
      ) : null}
    </div>
  );
});
