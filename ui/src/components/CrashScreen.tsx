/**
 * What the window shows when rendering it threw: the error, and a way back. A
 * render error unmounts React's whole tree, which left a blank window with no
 * word of why. The agents run in the app's process, not the page, so they go
 * on, and their transcripts are stored as ever.
 */
import { Component, type ErrorInfo, type ReactNode } from "react";

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
        <p>Your agents run in Arbor's process, not in this window: they go on, and what they do is saved.</p>
        <pre className="block mono">
          {error.name}: {error.message}
          {stack ? `\n${stack}` : ""}
        </pre>
        <button type="button" className="btn primary" onClick={() => window.location.reload()}>
          Reload the window
        </button>
      </main>
    );
  }
}
