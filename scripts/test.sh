#!/usr/bin/env bash
# README command 2 (and all that CI runs): install what is missing, then
# formatting, lints and the whole test suite of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

echo "==> cargo fmt --check"
cargo fmt --all --check
echo "==> cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked --quiet -- -D warnings
echo "==> tests (cargo nextest, whole workspace)"
cargo nextest run --workspace --locked --no-fail-fast --cargo-quiet
