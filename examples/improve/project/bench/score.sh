#!/bin/sh
# The benchmark: one point per case that words.sh gets right, per area.
check() { # area input want
	got=$(sh words.sh "$1" "$2")
	[ "$got" = "$3" ] && eval "pass_$1=\$((pass_$1 + 1))"
	eval "max_$1=\$((max_$1 + 1))"
}
pass_upper=0 max_upper=0 pass_count=0 max_count=0 pass_reverse=0 max_reverse=0
check upper "abc" "ABC"
check upper "Hello, World" "HELLO, WORLD"
check upper "" ""
check count "one two three" "3"
check count "a" "1"
check count "lore improves code" "3"
check count "" "0"
check reverse "abc" "cba"
check reverse "level" "level"
check reverse "lore" "erol"
for a in upper count reverse; do
	eval "echo \"$a: \$pass_$a/\$max_$a\""
done
echo "TOTAL: $((pass_upper + pass_count + pass_reverse))/$((max_upper + max_count + max_reverse))"
