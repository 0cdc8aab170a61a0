import { fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { showChanges, uiStore } from "../store/ui";
import { resetStores } from "../test/stores";
import { SessionViewTabs } from "./SessionViewTabs";

beforeEach(() => resetStores());

describe("SessionViewTabs", () => {
  it("switches the centre between the agent and the session's timeline", () => {
    render(<SessionViewTabs />);
    expect(screen.getByRole("tab", { name: "Agent" }).getAttribute("aria-selected")).toBe("true");
    fireEvent.click(screen.getByRole("tab", { name: "Timeline" }));
    expect(uiStore.get().sessionView).toBe("timeline");
    expect(screen.getByRole("tab", { name: "Timeline" }).getAttribute("aria-selected")).toBe("true");
    // A tree row's change count shows the agent's Changes, wherever the centre was.
    showChanges("agent-main");
    expect(uiStore.get()).toMatchObject({ sessionView: "agent", outputTab: "changes", selected: "agent-main" });
  });
});
