#!/usr/bin/env bash
# Checks that every Documentation= of the given (installed) units resolves inside ROOT:
#   man:NAME(SECTION)  `man -w SECTION NAME` finds a page under ROOT (MANPATH=ROOT/usr/share/man:ROOT/usr/local/share/man
#                      unless ROOT is /, where man's own search path is used)
#   file:///PATH       ROOT/PATH is a regular file
# Anything else (http:, https:, info:) fails: the units must name only what the installation holds.
#   Tests/Support/check-unit-docs.sh ROOT UNIT...      exit 0 when all resolve; one line per URI either way
set -euo pipefail
root=${1:?usage: check-unit-docs.sh ROOT UNIT...}; shift
root=${root%/}
[ $# -gt 0 ] || { echo "check-unit-docs: no units given" >&2; exit 2; }
failed=0 count=0
for unit in "$@"; do
  uris=$(sed -n 's/^Documentation=//p' "$unit" | tr ' ' '\n' | sed '/^$/d')
  [ -n "$uris" ] || { echo "$unit: no Documentation=" >&2; failed=1; continue; }
  for uri in $uris; do
    count=$((count + 1))
    case "$uri" in
      man:*\(*\))
        page=${uri#man:}; name=${page%%(*}; section=${page#*(}; section=${section%)}
        if [ -z "$root" ]; then found=$(man -w "$section" "$name" 2>/dev/null || true)
        else found=$(MANPATH="$root/usr/share/man:$root/usr/local/share/man" man -w "$section" "$name" 2>/dev/null || true); fi
        case "$found" in
          "$root"/*) echo "ok   $unit: $uri → $found" ;;
          *) echo "FAIL $unit: $uri: man -w $section $name finds nothing under ${root:-/} (${found:-no page})" >&2; failed=1 ;;
        esac ;;
      file://*)
        path=${uri#file://}
        if [ -f "$root$path" ]; then echo "ok   $unit: $uri → $root$path"
        else echo "FAIL $unit: $uri: no file $root$path" >&2; failed=1; fi ;;
      *) echo "FAIL $unit: $uri: names nothing installed (only man: and file: URIs are)" >&2; failed=1 ;;
    esac
  done
done
[ "$count" -gt 0 ] || failed=1
exit $failed
