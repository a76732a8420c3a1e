#!/bin/sh
# words.sh: a tiny word toolkit, with bugs for lore improve to fix.
# Usage: sh words.sh upper|count|reverse TEXT

case "$1" in
upper) printf '%s\n' "$2" | tr 'a-z' 'A-Z' ;;
count) printf '%s' "$2" | wc -c | tr -d ' ' ;;
reverse) printf '%s\n' "$2" ;;
*) echo "usage: words.sh upper|count|reverse TEXT" >&2; exit 2 ;;
esac
