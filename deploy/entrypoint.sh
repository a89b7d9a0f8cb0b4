#!/bin/sh
# Container entry of a rocelab node (deploy/Dockerfile). For `node` (the default command):
#  1. shape this node's links with tc to rate ÷ TIME_SCALE (needs NET_ADMIN; SHAPE=0 skips it,
#     a failure is reported and the node runs unshaped),
#  2. with START_GATE: say ready and wait for the traffic job's start time (START_AT_MONO_NS),
# then run `rocelab <command>` as PID 1's replacement, so docker's SIGTERM reaches it.
# docs/docker.md describes the environment.
set -e
# The image keeps the app in /app; run from a checkout, the entry finds it the same way (with
# the shell's own expansion: the image's minimal base has no dirname).
case "$0" in
*/*) cd "${0%/*}/.." ;;
*) cd /app ;;
esac
if [ "${1:-node}" = node ]; then
  start="$(node dist/src/runtime/netns/container-main.js)"
  eval "$start"
fi
# --single-threaded-gc: a compose testbed puts more node containers than cores on a machine, and
# parallel scavenges stall there (src/runtime/real/node-process.ts).
exec node --single-threaded-gc bin/rocelab.js "$@"
