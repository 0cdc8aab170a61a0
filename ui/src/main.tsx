import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { CrashScreen } from "./components/CrashScreen";
import { installPerfProbe } from "./lib/perf";
import "./styles/index.css";

installPerfProbe();

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <CrashScreen>
        <App />
      </CrashScreen>
    </StrictMode>,
  );
}
