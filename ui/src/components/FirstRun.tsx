/** The welcome screen while no provider is set up and no session exists. */
import { startDemo } from "../ipc/actions";
import { orList } from "../lib/format";
import { useStore } from "../store/store";
import { patchUi, uiStore } from "../store/ui";
import { IconGear, IconPlay, IconTree } from "./icons";
import { Brand, HistoryButton, SettingsButton } from "./TopBar";

export function FirstRun() {
  const starting = useStore(uiStore, (s) => s.starting);
  const providers = useStore(uiStore, (s) => s.app?.providers) ?? [];
  const openProviders = () => {
    patchUi({ view: "settings" });
    requestAnimationFrame(() => document.getElementById("settings-providers")?.scrollIntoView());
  };
  return (
    <>
      <header className="topbar">
        <Brand />
        <span className="spacer" />
        <HistoryButton />
        <SettingsButton />
      </header>
      <div className="center-screen">
        <div className="welcome">
          <h1>
            <IconTree size={26} /> Welcome to Arbor
          </h1>
          <p>
            Arbor runs a main agent that hands parts of a task to subagents. You watch the whole tree work live,
            approve the changes they want to make, delegate tasks yourself and stop any branch.
          </p>
          <div className="choices">
            <div className="choice">
              <div className="title">Set up a provider</div>
              {providers.length > 0 ? (
                <p>
                  Add an {orList(providers.map((p) => p.label))} API key (kept in your OS keyring), or set{" "}
                  <span className="mono">{orList(providers.map((p) => p.key_var))}</span>, to run agents on your own tasks.
                </p>
              ) : (
                <p>Add an API key (kept in your OS keyring) to run agents on your own tasks.</p>
              )}
              <button type="button" className="btn" onClick={openProviders}>
                <IconGear size={13} /> Open provider settings
              </button>
            </div>
            <div className="choice">
              <div className="title">See it first</div>
              <p>
                A scripted session with two parallel subagents, edits and shell commands, on a small sample project of
                its own (not your workspace). No API key needed.
              </p>
              <button
                type="button"
                className="btn primary large"
                data-testid="try-demo"
                disabled={starting}
                onClick={() => void startDemo()}
              >
                <IconPlay size={13} /> {starting ? "Starting…" : "Try the demo"}
              </button>
            </div>
          </div>
        </div>
      </div>
    </>
  );
}
