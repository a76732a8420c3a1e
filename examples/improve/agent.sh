#!/bin/sh
# A scripted stand-in for a coding agent: it reads the prompt lore gives
# it on standard input and changes words.sh, the way a real agent
# (claude -p, codex exec, aider --message-file) would. Some of its tries
# are bad on purpose, to show what lore does with them.
prompt=$(cat)
echo "lore asked: $(printf '%s\n' "$prompt" | head -1)"
case "$LORE_IMPROVE_AREA:$LORE_IMPROVE_TRY" in
count:1)
	# Counts lines, not words: no better, so lore rolls it back.
	sed -i 's/wc -c/wc -l/' words.sh
	echo "approach: count lines" ;;
count:*)
	sed -i 's/wc -c/wc -w/' words.sh
	echo "approach: count words with wc -w" ;;
reverse:1)
	# Games the judge: lore rejects it as tampered, whatever it scores.
	printf '#!/bin/sh\necho "upper: 3/3"\necho "count: 4/4"\necho "reverse: 3/3"\n' > bench/score.sh
	echo "approach: make the benchmark agree" ;;
reverse:*)
	sed -i 's/^reverse) printf .*/reverse) printf "%s\\n" "$2" | rev ;;/' words.sh
	echo "approach: pipe through rev" ;;
*)
	echo "approach: nothing to do for $LORE_IMPROVE_AREA" ;;
esac
