#!/bin/sh
# Remove the network namespaces (and with them the veths, qdiscs and node processes inside) that
# `rocelab run --runtime netns` launchers left when they were killed without cleaning up.
# Namespaces of launchers still running are kept; `--all` removes every rocelab namespace (rl-*).
# Needs root and a built tree (npm run build). A netns run does the same sweep when it starts.
set -e
cd "$(dirname "$0")/.."
exec node --input-type=module -e '
const { sweepNetns } = await import("./dist/src/runtime/netns/sys.js");
const removed = sweepNetns({ all: process.argv.includes("--all") });
console.log(removed.length > 0 ? `removed ${removed.join(" ")}` : "no leftover rocelab namespaces");
' -- "$@"
