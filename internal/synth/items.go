package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/lorehq/lore"
)

// Knowledge items for store benchmarks: sentences shaped like harvested
// ones (a tool, a component, an error, a fix), over a vocabulary whose
// word frequencies fall off like natural text, so that a search for a
// common word matches many items and one for a rare word few.

var (
	itemTools = strings.Fields(`go npm pnpm yarn pytest cargo docker kubectl terraform git make gh
		helm pip poetry uv bazel gradle maven jest vitest eslint ruff mypy golangci-lint psql redis-cli
		aws gcloud az ansible nix brew apt curl jq sed rg`)
	itemParts = strings.Fields(`api server worker scheduler queue cache database migration schema
		auth login session token gateway proxy router handler middleware client sdk cli config
		loader parser lexer compiler linker bundler frontend backend dashboard webhook billing invoice
		payment search index crawler importer exporter uploader downloader storage bucket volume
		cluster node pod deployment service ingress certificate secret vault logger metrics tracing
		alerting notifier mailer template renderer theme plugin extension adapter driver connector
		pipeline workflow runner job task cron batch stream consumer producer topic partition
		replica shard backup restore snapshot archive retention quota limit throttle retry timeout`)
	itemErrors = strings.Fields(`timeout refused denied forbidden unauthorized conflict missing
		corrupt locked deadlock overflow panic segfault leak race flaky stale mismatch unsupported
		deprecated unreachable truncated duplicate invalid malformed expired revoked throttled`)
	itemVerbs = strings.Fields(`fails crashes hangs breaks times-out returns rejects skips ignores
		drops retries leaks blocks corrupts duplicates truncates`)
	itemFixes = strings.Fields(`restart rebuild regenerate reinstall pin upgrade downgrade clear
		reset rotate refresh re-run export set unset mount enable disable configure vendor tidy`)
	itemFiller = strings.Fields(`when after before during while unless because first only always
		locally remotely nightly in ci on staging in production on macos on linux on windows with
		docker under load on cold start on large inputs with an empty cache behind the proxy`)
	itemCategories = []lore.Category{lore.CategoryFact, lore.CategoryPitfall, lore.CategoryPattern,
		lore.CategoryToolQuirk, lore.CategoryQuestion}
)

// zipf picks an index of a list of n with probability falling off as
// 1/rank, the shape of word frequencies in text.
func zipf(r *rand.Rand, n int) int {
	// Inverse of the continuous approximation of the harmonic CDF.
	return min(n-1, int(math.Exp(r.Float64()*math.Log(float64(n)+1)))-1)
}

func pick(r *rand.Rand, xs []string) string { return xs[zipf(r, len(xs))] }

// ItemOptions shape a set of synthetic items.
type ItemOptions struct {
	Seed uint64
	// Repeat is the share of items that repeat an earlier one (from
	// another session), as harvests of many sessions do; 0.2 by default.
	Repeat float64
}

// Items returns n synthetic items with evidence from about n/4 sessions.
// With the same options it returns the same items.
func Items(n int, opts ItemOptions) []lore.Item {
	r := rand.New(rand.NewPCG(opts.Seed, 0x10e))
	repeat := opts.Repeat
	if repeat == 0 {
		repeat = 0.2
	}
	sessions := max(1, n/4)
	items := make([]lore.Item, 0, n)
	for i := range n {
		var it lore.Item
		if i > 0 && r.Float64() < repeat {
			it = items[r.IntN(len(items))]
		} else {
			it = newItem(r, i)
		}
		it.Confidence = []float64{0.3, 0.5, 0.7, 0.9}[r.IntN(4)]
		it.Evidence = []lore.Evidence{{Session: fmt.Sprintf("claude-code:s%07d", r.IntN(sessions)), Position: r.IntN(400)}}
		items = append(items, it)
	}
	return items
}

func newItem(r *rand.Rand, i int) lore.Item {
	c := itemCategories[r.IntN(len(itemCategories))]
	tool, part, part2 := pick(r, itemTools), pick(r, itemParts), pick(r, itemParts)
	errw, verb, fix, when := pick(r, itemErrors), pick(r, itemVerbs), pick(r, itemFixes), pick(r, itemFiller)
	// A specific token makes most items distinct, as real items are
	// (a path, a version, a port).
	spec := []string{
		fmt.Sprintf("internal/%s/%s_%d.go", part, part2, i%997),
		fmt.Sprintf("v1.%d.%d", i%40, i%13),
		fmt.Sprintf("port %d", 3000+i%5000),
		fmt.Sprintf("%s_%s_%d", strings.ToUpper(part), strings.ToUpper(part2), i%211),
	}[r.IntN(4)]
	var text string
	switch c {
	case lore.CategoryPitfall:
		text = fmt.Sprintf("%s %s %s with a %s error %s; %s the %s (%s)", tool, part, verb, errw, when, fix, part2, spec)
	case lore.CategoryFact:
		text = fmt.Sprintf("The %s %s config is read from %s and the %s uses it %s", part, part2, spec, tool, when)
	case lore.CategoryPattern:
		text = fmt.Sprintf("Before changing the %s, %s the %s with %s and run the %s tests (%s)", part, fix, part2, tool, part, spec)
	case lore.CategoryToolQuirk:
		text = fmt.Sprintf("%s %s on %s files %s: the %s is %s (%s)", tool, verb, part, when, part2, errw, spec)
	default:
		text = fmt.Sprintf("Why does the %s %s %s when the %s is %s (%s)?", part, verb, when, part2, errw, spec)
	}
	it := lore.Item{Text: text, Category: c}
	switch r.IntN(4) {
	case 0, 1:
		it.Repo = fmt.Sprintf("org%d/%s-%d", zipf(r, 50), part, zipf(r, 20))
	case 2:
		it.Agent = lore.Agents[zipf(r, len(lore.Agents))]
	}
	if r.IntN(3) == 0 {
		it.Tags = []string{tool, part}
	}
	return it
}

// Queries returns n questions in people's words over the same vocabulary.
func Queries(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 0x9e7))
	qs := make([]string, n)
	for i := range qs {
		tool, part, errw, verb := pick(r, itemTools), pick(r, itemParts), pick(r, itemErrors), pick(r, itemVerbs)
		qs[i] = []string{
			fmt.Sprintf("why does the %s %s with a %s error?", part, verb, errw),
			fmt.Sprintf("where does %s read the %s config", tool, part),
			fmt.Sprintf("%s %s %s", tool, part, errw),
			fmt.Sprintf("how do I fix %s %s in the %s", errw, tool, part),
			fmt.Sprintf("what should I run before changing the %s?", part),
		}[r.IntN(5)]
	}
	return qs
}
