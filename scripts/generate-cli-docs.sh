#!/usr/bin/env bash
# Regenerates man/schedd.1 and completions/ from the command table (Sources/schedd/CLI/CommandTable.swift),
# through the built binary: what ManPageAndCompletionTests checks the checked-in files against.
# Usage: scripts/generate-cli-docs.sh [BINARY=.build/debug/schedd]
set -euo pipefail
cd "$(dirname "$0")/.."
BINARY="${1:-.build/debug/schedd}"
[ -x "$BINARY" ] || { export PATH="/opt/swift/usr/bin:$PATH"; swift build --product schedd >&2; }
"$BINARY" help --man > man/schedd.1
"$BINARY" completion bash > completions/schedd.bash
"$BINARY" completion zsh > completions/_schedd
"$BINARY" completion fish > completions/schedd.fish
echo "regenerated man/schedd.1 and completions/ (schedd-push(5) is written by hand)"
