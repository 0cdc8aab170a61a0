/**
 * Tauri's `Channel` in tests: every channel the code under test opens is kept
 * here, so a test sends frames on it as the backend would. A test file mocks
 * `@tauri-apps/api/core` with it:
 * `vi.mock("@tauri-apps/api/core", async () => ({ Channel: (await import("../test/channels")).FakeChannel }))`.
 */
import type { EventFrame } from "../bindings";

export const channels: FakeChannel[] = [];

export class FakeChannel {
  onmessage: (frame: EventFrame) => void = () => undefined;
  constructor() {
    channels.push(this);
  }
}
