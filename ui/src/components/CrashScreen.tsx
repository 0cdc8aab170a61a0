/**
 * What the window shows when rendering it threw: the error, and the ways on. A
 * render error unmounts React's whole tree, which left a blank window with no
 * word of why (and a close held for a question no one could show). The agents
 * run in the app's process, not the page: they go on, and what they do is
 * stored. Stop and quit interrupts them, to be continued at the next start with
 * their questions asked again; a reloaded page joins the sessions still
 * running (ipc/sessions.ts, joinRunning), their cards still answerable.
 */
import { Component, type ErrorInfo, type ReactNode } from "react";
import { closeWindow } from "../ipc/window";

/** How much of a stack the screen shows: the top frames say where; the rest is the console's. */
const STACK_LINES = 12;

interface State {
  error: Error | null;
}

export class CrashScreen extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error("Arbor's window failed to render", error, info.componentStack);
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (error === null) return this.props.children;
    const stack = (error.stack ?? "").split("\n").slice(0, STACK_LINES).join("\n");
    return (
      <main className="crash-screen" role="alert" data-testid="crash-screen">
        <h1>The window hit an error</h1>
        <p>
          Your agents run in Arbor&apos;s process, not in this window: they go on, and what they do is saved.{" "}
          <strong>Stop and quit</strong> interrupts them; Arbor offers to continue them at the next start, asking again
          any question they were waiting on. <strong>Reload the window</strong> shows the sessions at work again, with
          any question they are waiting on.
        </p>
        <pre className="block mono">
          {error.name}: {error.message}
          {stack ? `\n${stack}` : ""}
        </pre>
        <div className="crash-actions">
          <button type="button" className="btn primary" data-testid="crash-stop" onClick={() => void closeWindow("stop")}>
            Stop and quit
          </button>
          <button type="button" className="btn" data-testid="crash-reload" onClick={() => window.location.reload()}>
            Reload the window
          </button>
        </div>
      </main>
    );
  }
}
