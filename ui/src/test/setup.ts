import { cleanup } from "@testing-library/react";
import { afterEach, beforeEach } from "vitest";
import { resetDerivedAgents } from "./agents";

// Each test's agents start unknown to the stand-in for Rust's derivation (test/agents.ts).
beforeEach(() => resetDerivedAgents());

afterEach(() => {
  cleanup();
});
