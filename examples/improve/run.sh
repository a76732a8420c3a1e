#!/bin/sh
# Runs lore improve on a copy of project/ in a temporary folder: four
# rounds, then the status and the report. Nothing outside that folder is
# touched (lore's store there too).
set -e
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/lore-improve-example.XXXXXX")
cp -R "$here/project" "$work/repo"
cd "$work/repo"
git init -q -b main
git add -A
git -c user.name=example -c user.email=example@localhost commit -q -m "words.sh with bugs"
export LORE_HOME="$work/lore-home"
if [ -n "$LORE" ]; then :
elif command -v lore >/dev/null 2>&1; then LORE=lore
else LORE="go -C $here/../.. run ./cmd/lore"
fi
echo "== the benchmark at the start"
sh bench/score.sh
echo "== lore improve run (4 rounds)"
$LORE improve run --repo "$work/repo" --bench "sh bench/score.sh" --bench-source 'bench/**' \
	--agent "sh $here/agent.sh" --approve '**' --rounds 4 --agent-timeout 1m
echo "== lore improve status"
$LORE improve status --repo "$work/repo"
echo "== lore improve report"
$LORE improve report --repo "$work/repo"
echo "== the branch lore/improve, and your checkout (untouched)"
git log --oneline lore/improve
git status --short
echo "Everything is in $work"
