#!/usr/bin/env bash
# Records real Claude Code transcript files for the importer's tests: runs the
# Claude Code CLI from npm (pinned below) against arbor's scripted model server
# on loopback, in a throwaway workspace with a throwaway HOME, and copies the
# `projects/` directory it writes (session files, subagent files and their
# .meta.json) to tests/fixtures/claude-code/projects/. Two sessions are
# recorded in one project: FIXTURE-MAIN (thinking, two parallel subagents that
# use Read, Bash and Write, a Markdown answer) and FIXTURE-QA (one turn).
# The model's part is tests/scenarios/claude_code_record.json.
#
# The only rewriting: the temporary paths (workspace, HOME, temp root), in
# file and directory names and in the rows, become /home/user/demo-project,
# /home/user and /tmp/arbor-cc-record. Session ids are fixed (--session-id), so
# re-recording changes only row uuids, agent ids, timestamps, durations and the
# message/tool ids (the server derives them from request text that holds the
# temp path), and where bookkeeping rows fall among the others.
#
# Needs node/npm (to install the CLI into a cache directory) and the scripted
# model server, built by `cargo build -p arbor-testkit --bin arbor-scripted-model`
# (or set ARBOR_SCRIPTED_MODEL). Nothing leaves the machine except the npm
# install: Claude Code gets a dummy API key, ANTHROPIC_BASE_URL points at the
# loopback server, and telemetry, auto-update and nonessential traffic are off.
# The real ~/.claude is never read or written. Re-running replaces the fixtures.
#
# Usage: scripts/record-claude-code-fixtures.sh   (KEEP_TMP=1 keeps the temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$PWD"

CC_VERSION=2.1.330
SCENARIO="$REPO/tests/scenarios/claude_code_record.json"
OUT="$REPO/tests/fixtures/claude-code/projects"
PLACEHOLDER_WS=/home/user/demo-project
PLACEHOLDER_HOME=/home/user
PLACEHOLDER_TMP=/tmp/arbor-cc-record
MAIN_SESSION=7f3c2a10-5b6e-4d8a-9c1f-2e4b6d8f0a13
QA_SESSION=c4e8a1b2-3d5f-4a6b-8c7d-9e0f1a2b3c4d
TOOLS="Agent,Bash,Read,Write"
SERVER_BIN="${ARBOR_SCRIPTED_MODEL:-$REPO/target/debug/arbor-scripted-model}"
CC_PREFIX="${ARBOR_CC_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/arbor/claude-code-$CC_VERSION}"
CLAUDE="$CC_PREFIX/node_modules/.bin/claude"

if [[ ! -x "$SERVER_BIN" ]]; then
  echo "error: no scripted model server at $SERVER_BIN" >&2
  echo "build it with: cargo build -p arbor-testkit --bin arbor-scripted-model (or set ARBOR_SCRIPTED_MODEL)" >&2
  exit 1
fi

# 1. Claude Code at the pinned version, installed once into a cache prefix.
if ! "$CLAUDE" --version 2>/dev/null | grep -q "^$CC_VERSION "; then
  echo "==> installing @anthropic-ai/claude-code@$CC_VERSION into $CC_PREFIX"
  mkdir -p "$CC_PREFIX"
  npm install --prefix "$CC_PREFIX" --no-audit --no-fund --no-save --loglevel=error \
    "@anthropic-ai/claude-code@$CC_VERSION"
fi
got="$("$CLAUDE" --version)"
if [[ "$got" != "$CC_VERSION "* ]]; then
  echo "error: $CLAUDE reports '$got', expected $CC_VERSION" >&2
  exit 1
fi
echo "==> $got"

# 2. A throwaway root: HOME (and CLAUDE_CONFIG_DIR) and the workspace, a small git repo.
TMP="$(mktemp -d "${TMPDIR:-/tmp}/arbor-cc-record.XXXXXX")"
TMP="$(cd "$TMP" && pwd -P)"
WS="$TMP/demo-project"
FAKE_HOME="$TMP/home"
SERVER_PID=""
cleanup() {
  if [[ -n "$SERVER_PID" ]]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  if [[ "${KEEP_TMP:-0}" == 1 ]]; then echo "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
mkdir -p "$WS" "$FAKE_HOME/.claude"
printf 'apple\nbanana\ncherry\ndate\nelderberry\n' >"$WS/data.txt"
printf '# demo-project\n\nA tiny project for recording Claude Code transcripts.\n' >"$WS/README.md"
(
  cd "$WS"
  export HOME="$FAKE_HOME" GIT_CONFIG_NOSYSTEM=1 TZ=UTC
  export GIT_AUTHOR_NAME="Demo User" GIT_AUTHOR_EMAIL=user@example.com
  export GIT_COMMITTER_NAME="Demo User" GIT_COMMITTER_EMAIL=user@example.com
  export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
  git init -q -b main
  git add data.txt README.md
  git commit -q -m "Initial commit"
)

# 3. The scripted model, with the workspace's real path put into the scenario.
sed "s|$PLACEHOLDER_WS|$WS|g" "$SCENARIO" >"$TMP/scenario.json"
"$SERVER_BIN" "$TMP/scenario.json" >"$TMP/server.out" 2>"$TMP/server.err" &
SERVER_PID=$!
BASE_URL=""
for _ in $(seq 100); do
  BASE_URL="$(sed -n 's/^ANTHROPIC_BASE_URL=//p' "$TMP/server.out")"
  [[ -n "$BASE_URL" ]] && break
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
if [[ -z "$BASE_URL" ]]; then
  echo "error: the scripted model server did not start:" >&2
  cat "$TMP/server.err" >&2
  exit 1
fi
echo "==> scripted model at $BASE_URL"

# 4. Claude Code, non-interactive, in a clean environment. -p alone would ask
# for thinking with display "omitted" (the real API then leaves the thinking
# text out; this server would send it anyway); "summarized" is what interactive
# sessions ask for, so recorded thinking text matches the request. --tools keeps
# to the four tools used: every request's tool schemas are copied into the
# transcript (prompt_snapshot, api-request-shape): the full set makes it ~1.5x bigger.
# --allowedTools rather than bypassPermissions, which Claude Code refuses as root.
run_claude() {
  local session="$1" prompt="$2" out="$TMP/$1.json"
  echo "==> claude -p (session $session)"
  (
    cd "$WS"
    env -i \
      PATH="$PATH" HOME="$FAKE_HOME" CLAUDE_CONFIG_DIR="$FAKE_HOME/.claude" \
      SHELL=/bin/bash TERM=dumb LANG=C.UTF-8 TZ=UTC TMPDIR="$TMP" USER=user \
      ANTHROPIC_BASE_URL="$BASE_URL" ANTHROPIC_API_KEY=sk-ant-arbor-fixture-dummy \
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
      DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 \
      "$CLAUDE" -p "$prompt" --session-id "$session" --output-format json \
      --tools "$TOOLS" --allowedTools "$TOOLS" --thinking-display summarized >"$out" 2>"$TMP/$session.stderr"
  ) || {
    echo "error: claude failed (session $session):" >&2
    cat "$out" "$TMP/$session.stderr" >&2
    exit 1
  }
  if ! grep -q '"is_error":false' "$out"; then
    echo "error: claude reported an error (session $session):" >&2
    cat "$out" >&2
    exit 1
  fi
}
run_claude "$MAIN_SESSION" "FIXTURE-MAIN: count the lines in data.txt and write notes.md, using two subagents in parallel."
run_claude "$QA_SESSION" "FIXTURE-QA: what is a .jsonl file, in one sentence?"
kill "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""

# 5. Copy projects/ with the temporary paths replaced, in names and contents.
rm -rf "$OUT"
mkdir -p "$(dirname "$OUT")"
node - "$FAKE_HOME/.claude/projects" "$OUT" \
  "$WS=$PLACEHOLDER_WS" "$FAKE_HOME=$PLACEHOLDER_HOME" "$TMP=$PLACEHOLDER_TMP" <<'EOF'
const fs = require("fs");
const path = require("path");
const [src, dst, ...pairs] = process.argv.slice(2);
// Claude Code names a project directory after its path with every
// non-alphanumeric character replaced by '-'; rewrite that form too.
const dashed = (p) => p.replace(/[^a-zA-Z0-9]/g, "-");
const swaps = [];
for (const pair of pairs) {
  const at = pair.indexOf("=");
  const from = pair.slice(0, at), to = pair.slice(at + 1);
  swaps.push([from, to], [dashed(from), dashed(to)]);
}
const rewrite = (s) => swaps.reduce((acc, [from, to]) => acc.split(from).join(to), s);
const copy = (from, to) => {
  if (fs.statSync(from).isDirectory()) {
    fs.mkdirSync(to, { recursive: true });
    for (const name of fs.readdirSync(from).sort()) copy(path.join(from, name), path.join(to, rewrite(name)));
  } else {
    fs.writeFileSync(to, rewrite(fs.readFileSync(from, "utf8")), { mode: 0o644 });
  }
};
copy(src, dst);
EOF

# 6. Checks: the expected files are there, and nothing failed or leaked.
PROJECT="$OUT/-home-user-demo-project"
for f in "$PROJECT/$MAIN_SESSION.jsonl" "$PROJECT/$QA_SESSION.jsonl"; do
  [[ -s "$f" ]] || { echo "error: missing $f" >&2; exit 1; }
done
n_agents="$(find "$PROJECT/$MAIN_SESSION/subagents" -name 'agent-*.jsonl' | wc -l)"
n_meta="$(find "$PROJECT/$MAIN_SESSION/subagents" -name 'agent-*.meta.json' | wc -l)"
if [[ "$n_agents" -ne 2 || "$n_meta" -ne 2 ]]; then
  echo "error: expected 2 subagent transcripts and 2 meta files, found $n_agents and $n_meta" >&2
  exit 1
fi
if grep -rl -e "$TMP" -e "arbor-testkit scenario" "$OUT" >&2; then
  echo "error: the files above hold a temporary path or an unmatched-request error" >&2
  exit 1
fi
echo "==> recorded into ${OUT#"$REPO"/}:"
find "$OUT" -type f | sort | while read -r f; do
  printf '%8d  %s\n' "$(wc -c <"$f")" "${f#"$OUT"/}"
done
