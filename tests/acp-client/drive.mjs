// An editor's side of ACP, through the official TypeScript SDK: starts `arbor acp`,
// runs one flow, and prints what it saw as one JSON object on stdout for the Rust
// test to check (every update, every permission request, every response).
//
//   node drive.mjs FLOW ARBOR_BIN CWD [SESSION_ID]
//
// Flows:
//   turn    initialize (with subagents), session/new, two prompts, session/list
//   cancel  initialize, session/new, a prompt cancelled at its first permission request
//   cancel-child  the same with a subagent, its own session cancelled at its request
//   load    initialize, session/load SESSION_ID (the replay), then a prompt that continues it
//   twice   initialize, session/new, a prompt whose two Writes ask at once
//
// Permission requests are answered from ACP_ANSWERS (a JSON list of option ids, in
// order; "cancel" sends session/cancel for the main session and answers "cancelled",
// "cancel-child" the same for the asking (child) session; "hold" answers only when Arbor
// withdraws the request with `$/cancel_request`, recorded in `withdrawn`); the turn flow's
// session gets the MCP servers in ACP_MCP (a JSON list, as session/new takes them).

import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { ClientApp, ndJsonStream } from "@agentclientprotocol/sdk/unstable";

const [flow, arbor, cwd, sessionArg] = process.argv.slice(2);
const answers = JSON.parse(process.env.ACP_ANSWERS ?? "[]");
const mcpServers = JSON.parse(process.env.ACP_MCP ?? "[]");
const seen = { updates: [], permissions: [], errors: [], withdrawn: [] };
let answered = 0;

const child = spawn(arbor, ["acp"], { stdio: ["pipe", "pipe", "inherit"] });
const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const app = new ClientApp({ name: "arbor-test-client" })
  .onNotification("session/update", ({ params }) => {
    seen.updates.push(params);
  })
  .onRequest("session/request_permission", async ({ params, agent, signal }) => {
    seen.permissions.push({ params, afterUpdates: seen.updates.length });
    const choice = answers[answered++] ?? "reject_once";
    if (choice === "hold") {
      // Left open, as a person who has not answered yet: only Arbor's withdrawal ends it.
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      seen.withdrawn.push(params.toolCall.toolCallId);
      return { outcome: { outcome: "cancelled" } };
    }
    if (choice === "cancel") {
      const main = params.sessionId.split("/")[0];
      await agent.notify("session/cancel", { sessionId: main });
      return { outcome: { outcome: "cancelled" } };
    }
    if (choice === "cancel-child") {
      // The asking session itself: a child session's cancel stops only its subtree.
      await agent.notify("session/cancel", { sessionId: params.sessionId });
      return { outcome: { outcome: "cancelled" } };
    }
    return { outcome: { outcome: "selected", optionId: choice } };
  });

const timeout = setTimeout(() => {
  console.error("drive.mjs: the flow took more than 120 s");
  child.kill("SIGKILL");
  process.exit(3);
}, 120_000);

const result = await app.connectWith(stream, async (ctx) => {
  const out = {};
  out.initialize = await ctx.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, subagents: {} },
    clientInfo: { name: "arbor-test-client", version: "1.0.0" },
  });
  const prompt = async (sessionId, text) => {
    try {
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    } catch (e) {
      seen.errors.push({ message: String(e?.message ?? e), data: e?.data ?? null });
      return null;
    }
  };
  if (flow === "turn") {
    const created = await ctx.request("session/new", { cwd, mcpServers });
    out.sessionId = created.sessionId;
    out.stop = await prompt(created.sessionId, "MAIN: write the notes, then have a helper check them");
    out.stop2 = await prompt(created.sessionId, "And once more");
    out.list = await ctx.request("session/list", { cwd });
  } else if (flow === "cancel") {
    const created = await ctx.request("session/new", { cwd, mcpServers: [] });
    out.sessionId = created.sessionId;
    out.stop = await prompt(created.sessionId, "CANCEL: write a file");
  } else if (flow === "cancel-child") {
    const created = await ctx.request("session/new", { cwd, mcpServers: [] });
    out.sessionId = created.sessionId;
    out.stop = await prompt(created.sessionId, "KID: have a helper write a file");
  } else if (flow === "twice") {
    const created = await ctx.request("session/new", { cwd, mcpServers: [] });
    out.sessionId = created.sessionId;
    out.stop = await prompt(created.sessionId, "TWICE: write two files");
    // Withdrawn while the turn ran, not by the connection closing afterwards.
    out.withdrawnInTurn = [...seen.withdrawn];
  } else if (flow === "load") {
    out.load = await ctx.request("session/load", { sessionId: sessionArg, cwd, mcpServers: [] });
    out.replayed = seen.updates.length;
    out.stop = await prompt(sessionArg, "AGAIN: one more thing");
  } else {
    throw new Error(`unknown flow ${flow}`);
  }
  return out;
});

clearTimeout(timeout);
child.stdin.end();
const code = await new Promise((resolve) => child.on("exit", (c) => resolve(c)));
process.stdout.write(JSON.stringify({ ...result, ...seen, arborExit: code }) + "\n");
