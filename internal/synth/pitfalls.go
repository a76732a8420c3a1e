package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/errsig"
)

// Pitfalls and tool quirks worded as the rules harvest words them (the
// failed command in backticks, its error, what worked) with their error
// signatures, for the benchmarks of lore recall: the items it looks up
// by the command about to run and by the error just met.

var pitfallCommands = strings.Fields(`go_test go_build go_vet go_mod npm_install npm_test npm_run pnpm_install
	yarn_add cargo_build cargo_test docker_build docker_compose kubectl_apply kubectl_get terraform_plan
	terraform_apply git_push git_pull git_rebase git_commit gh_pr gh_api make_test make_build pytest_-x
	pip_install uv_sync helm_upgrade bazel_test gradle_build mvn_install psql_-c aws_s3 gcloud_run`)

// PitfallCommand is the command a pitfall of Pitfalls is of, as an agent
// types it, and what its failure printed.
type PitfallCommand struct {
	Command string // as typed
	Output  string // what the failure printed, as Claude Code reports it
}

// pitfallCommand is a program, its subcommand and an argument.
func pitfallCommand(r *rand.Rand) (prog, sub, arg string) {
	pc := strings.SplitN(pick(r, pitfallCommands), "_", 2)
	return pc[0], pc[1], fmt.Sprintf("./%s/%s", pick(r, itemParts), pick(r, itemParts))
}

// Pitfalls returns n pitfalls and tool quirks shaped as harvest makes
// them, scoped as Items scopes its items, active and confident enough to
// be handed out, and the commands (with their failures) they are of, for
// a benchmark to run. With the same seed it returns the same.
func Pitfalls(n int, seed uint64) ([]lore.Item, []PitfallCommand) {
	r := rand.New(rand.NewPCG(seed, 0x91f))
	items := make([]lore.Item, 0, n)
	cmds := make([]PitfallCommand, 0, n)
	for i := range n {
		prog, sub, arg := pitfallCommand(r)
		errw, part := pick(r, itemErrors), pick(r, itemParts)
		errLine := fmt.Sprintf("error: %s %s %d", part, errw, i%389)
		failed := fmt.Sprintf("%s %s %s", prog, sub, arg)
		output := "Exit code 1\n" + errLine
		// The signature harvest gives the failure.
		sig := errsig.Parse("Bash", `{"command":"`+failed+`"}`, output, nil).Signature
		it := lore.Item{Category: lore.CategoryPitfall, Signature: sig, Confidence: []float64{0.7, 0.9}[r.IntN(2)],
			Status: lore.StatusActive, Tags: []string{prog}}
		if r.IntN(4) == 0 {
			it.Category = lore.CategoryToolQuirk
			it.Text = fmt.Sprintf("`%s %s` can fail with `%s`.", prog, sub, errLine)
		} else {
			it.Text = fmt.Sprintf("`%s` fails with `%s`; `%s %s %s --%s` works.", failed, errLine, prog, sub, arg, pick(r, itemFixes))
		}
		switch r.IntN(4) {
		case 0, 1:
			it.Repo = fmt.Sprintf("org%d/%s-%d", zipf(r, 50), pick(r, itemParts), zipf(r, 20))
		case 2:
			it.Agent = lore.Agents[zipf(r, len(lore.Agents))]
		}
		items = append(items, it)
		cmds = append(cmds, PitfallCommand{Command: failed, Output: output})
	}
	return items, cmds
}

// RecallItems are the 100,000 items of the lore recall benchmarks: 90,000
// of every kind (Items, seed 1, as the boot benchmarks use) and 10,000
// pitfalls and quirks (Pitfalls, seed 7), those last; with the commands
// of the pitfalls.
func RecallItems() ([]lore.Item, []PitfallCommand) {
	pitfalls, cmds := Pitfalls(10_000, 7)
	return append(Items(90_000, ItemOptions{Seed: 1}), pitfalls...), cmds
}
