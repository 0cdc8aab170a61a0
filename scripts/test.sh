#!/usr/bin/env bash
# README command 2 (and all that CI runs): install what is missing, then the
# web UI's checks and build, formatting, lints and the whole test suite of the
# workspace, end-to-end tests of the real app included.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
. scripts/env.sh
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

echo "==> web UI: install, type check, lint, unit tests, build"
npm --prefix ui install --no-audit --no-fund --loglevel=error
npm --prefix ui run --silent typecheck
npm --prefix ui run --silent lint
npm --prefix ui run --silent test
npm --prefix ui run --silent build

echo "==> reference MCP servers for the tests (npm, pinned in tests/mcp)"
npm --prefix tests/mcp ci --no-audit --no-fund --loglevel=error
echo "==> Claude Code for the side-by-side tests (npm, pinned in tests/claude-code)"
npm --prefix tests/claude-code ci --no-audit --no-fund --loglevel=error
echo "==> The official ACP TypeScript SDK, the client of arbor acp's tests (npm, pinned in tests/acp-client)"
npm --prefix tests/acp-client ci --no-audit --no-fund --loglevel=error

# One feature set for every cargo step, so nothing is built twice: the app
# embeds ui/dist (custom-protocol), which its end-to-end tests need.
FEATURES=(--features arbor-desktop/custom-protocol)
echo "==> cargo fmt --check"
cargo fmt --all --check
echo "==> cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked --quiet "${FEATURES[@]}" -- -D warnings
echo "==> tests (cargo nextest, whole workspace; the desktop app end to end under Xvfb)"
cargo nextest run --workspace --locked --no-fail-fast --cargo-quiet "${FEATURES[@]}"
