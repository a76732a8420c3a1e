package synth

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/lorehq/lore"
)

// Episodes returns n synthetic episodes of n/20 sessions in 200
// repositories: errors of a tool and a component, shaped like real
// ones, whose signatures repeat as often as errors do (a few very often,
// most rarely) and whose values (a script, a symbol) vary; two in three
// with a fix. Each Failure of Failures(n, seed) meets one of them again
// or an error no episode has.
func Episodes(n int, seed uint64) []lore.Episode {
	r := rand.New(rand.NewPCG(seed, 3))
	eps := make([]lore.Episode, n)
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range eps {
		sig, line, tool := episodeError(r)
		e := lore.Episode{Session: fmt.Sprintf("claude-code:synth-%07d", i/20), Agent: lore.Agents[(i/20)%len(lore.Agents)],
			Repo: fmt.Sprintf("org%d/repo%d", (i/20)%37, (i/20)%200), At: at.Add(time.Duration(i) * time.Minute), Position: 3 + i%20,
			Tool: "Bash", Input: tool + " run " + pick(r, itemParts), Error: line, Signature: sig, Steps: 1 + r.IntN(12)}
		if r.IntN(3) != 0 {
			e.Fix = tool + " run " + pick(r, itemParts) + " --" + pick(r, itemFixes)
		}
		eps[i] = e
	}
	return eps
}

// Failures returns n failures for Episodes' store: three in four meet a
// signature the store has, one in four an error of words alone.
func Failures(n int, seed uint64) []lore.EpisodeQuery {
	r := rand.New(rand.NewPCG(seed, 5))
	qs := make([]lore.EpisodeQuery, n)
	for i := range qs {
		sig, line, _ := episodeError(r)
		if r.IntN(4) == 0 {
			sig = "unseen: " + sig
		}
		qs[i] = lore.EpisodeQuery{Signature: sig, Text: line, Repo: fmt.Sprintf("org%d/repo%d", i%37, i%200),
			Agent: lore.Agents[i%len(lore.Agents)], Limit: 20}
	}
	return qs
}

// episodeError is a synthetic error: its signature, its line and the
// tool that printed it.
func episodeError(r *rand.Rand) (sig, line, tool string) {
	tool, part, err := pick(r, itemTools), pick(r, itemParts), pick(r, itemErrors)
	value := fmt.Sprintf("%s_%s%d", pick(r, itemParts), pick(r, itemParts), r.IntN(50))
	sig = fmt.Sprintf("%s: %s %s: <q>", tool, part, err)
	line = fmt.Sprintf("%s: %s %s: %q %s", tool, part, err, value, pick(r, itemFiller))
	return sig, line, tool
}
