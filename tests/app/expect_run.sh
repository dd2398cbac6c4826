#!/usr/bin/env bash
# expect_run.sh CODE REGEX COUNT -- command...
# Runs the command; passes when it exits with CODE and its output (stdout and stderr) has at least COUNT
# lines matching the extended REGEX. A non-zero CODE accepts any non-zero exit when it is "nonzero".
set -u
code="$1" pattern="$2" count="$3"
shift 4
out="$("$@" 2>&1)"
rc=$?
matches=$(printf '%s\n' "$out" | grep -cE -e "$pattern" || true)
ok=1
if [ "$code" = nonzero ]; then [ "$rc" -ne 0 ] || ok=0; else [ "$rc" -eq "$code" ] || ok=0; fi
[ "$matches" -ge "$count" ] || ok=0
if [ "$ok" -ne 1 ]; then
  printf 'FAILED: exit %s (wanted %s), %s line(s) matching /%s/ (wanted %s)\n--- output ---\n%s\n' \
    "$rc" "$code" "$matches" "$pattern" "$count" "$out"
  exit 1
fi
printf 'ok: exit %s, %s matching line(s)\n' "$rc" "$matches"
