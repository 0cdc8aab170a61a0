#!/usr/bin/env bash
# The test against llama.cpp's server as a real peer (not part of the main suite:
# building the server takes 9–15 minutes the first time, then it is cached):
# a session longer than its 8,192-token window, through the OpenAI route, runs to
# completion by compacting. Usage: scripts/test-llama.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
eval "$(scripts/llama-server.sh)"
export LLAMA_SERVER LLAMA_MODEL LLAMA_TEMPLATE
cargo test --locked -p arbor-core --test all llama -- --ignored --nocapture
