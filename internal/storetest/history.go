package storetest

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/dedup"
)

// RunJournalHistory measures the journal's retrieval on real history no
// one here wrote:
// every commit of a repository is an attempt (subject as task, body as
// approach, its files and diff; rollback when a later commit that is
// itself logged reverts it); for the last heldBack of the commits, the
// journal is asked for the attempts most like each (its subject and
// files), and recall@5 counts the earlier attempts that touched one of
// its files among the five it returns, out of min(5, how many did). The
// baselines are the first design's: keyword overlap with a recency
// bonus, over the words of task and approach, and the same with the
// files as keywords too.
//
//	go test ./sqlite -run TestJournalHistory -v
//
// runs it on ../shared/histories/openhands-software-agent-sdk.bundle
// (skipped when absent) and on this repository's own history;
// LORE_HISTORY=DIR adds the git checkout at DIR. open returns a new,
// empty journal.
func RunJournalHistory(t *testing.T, open func(t *testing.T) lore.Journal) {
	if testing.Short() || raceDetector {
		t.Skip("reads whole git histories (10 s, two minutes under -race); not with -short or -race")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Run("openhands-sdk", func(t *testing.T) {
		bundle := filepath.Join("..", "..", "shared", "histories", "openhands-software-agent-sdk.bundle")
		if _, err := os.Stat(bundle); err != nil {
			t.Skipf("no %s: the shared histories are not here", bundle)
		}
		dir := filepath.Join(t.TempDir(), "sdk")
		if out, err := exec.Command("git", "clone", "-q", "--no-checkout", bundle, dir).CombinedOutput(); err != nil {
			t.Fatalf("git clone: %v: %s", err, out)
		}
		r := evalHistory(t, open(t), dir, "openhands/software-agent-sdk")
		if r.journal <= r.overlap || r.journal <= r.overlapFiles {
			t.Errorf("the journal's recall@5 %.3f does not beat the baselines' (%.3f, %.3f)", r.journal, r.overlap, r.overlapFiles)
		}
	})
	t.Run("lore", func(t *testing.T) {
		out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
		if err != nil {
			t.Skip("not in a git checkout")
		}
		r := evalHistory(t, open(t), strings.TrimSpace(string(out)), "lorehq/lore")
		if r.journal <= r.overlap || r.journal <= r.overlapFiles {
			t.Errorf("the journal's recall@5 %.3f does not beat the baselines' (%.3f, %.3f)", r.journal, r.overlap, r.overlapFiles)
		}
	})
	if dir := os.Getenv("LORE_HISTORY"); dir != "" {
		t.Run(filepath.Base(dir), func(t *testing.T) { evalHistory(t, open(t), dir, filepath.Base(dir)) })
	}
}

// heldBack is the share of the latest commits asked about.
const heldBack = 0.15

type commit struct {
	hash    string
	at      time.Time
	subject string
	body    string
	files   []string
	diff    string
}

var revertsRE = regexp.MustCompile(`This reverts commit ([0-9a-f]{7,40})`)

// historyResult is the recall@5 of each ranking.
type historyResult struct {
	journal, journalText, overlap, overlapFiles float64
}

func evalHistory(t *testing.T, s lore.Journal, dir, repo string) historyResult {
	cs := readHistory(t, dir)
	cut := int(float64(len(cs)) * (1 - heldBack))
	train, held := cs[:cut], cs[cut:]
	// Reverts known by the time of the held-back commits: those logged.
	rolledBack := map[string]bool{}
	for _, c := range train {
		for _, m := range revertsRE.FindAllStringSubmatch(c.body, -1) {
			for _, d := range train {
				if strings.HasPrefix(d.hash, m[1]) {
					rolledBack[d.hash] = true
				}
			}
		}
	}
	as := make([]lore.Attempt, len(train))
	for i, c := range train {
		as[i] = lore.Attempt{At: c.at, Repo: repo, Session: "git:" + c.hash, Task: c.subject, Approach: c.body, Files: c.files,
			Diff: c.diff, Outcome: lore.AttemptSuccess}
		if rolledBack[c.hash] {
			as[i].Outcome = lore.AttemptRollback
		}
	}
	ctx := context.Background()
	begin := time.Now()
	stored, err := s.LogAttempts(ctx, as)
	if err != nil {
		t.Fatal(err)
	}
	logged := time.Since(begin)
	byID := map[string]int{}
	for i, a := range stored {
		byID[a.ID] = i
	}
	words := make([]map[string]bool, len(train))
	for i, c := range train {
		words[i] = wordSet(c.subject + " " + c.body)
	}
	var r historyResult
	var asked int
	var took []time.Duration
	for _, q := range held {
		relevant := map[int]bool{}
		for i, c := range train {
			if sharesFile(c.files, q.files) {
				relevant[i] = true
			}
		}
		if len(relevant) == 0 || len(q.files) == 0 {
			continue
		}
		asked++
		recall := func(top []int) float64 {
			n := 0
			for _, i := range top {
				if relevant[i] {
					n++
				}
			}
			return float64(n) / float64(min(5, len(relevant)))
		}
		for _, withFiles := range []bool{true, false} {
			query := lore.AttemptQuery{Text: q.subject, Repo: repo, Limit: 5}
			if withFiles {
				query.Files = q.files
			}
			t0 := time.Now()
			hits, err := s.SimilarAttempts(ctx, query)
			if err != nil {
				t.Fatal(err)
			}
			if withFiles {
				took = append(took, time.Since(t0))
			}
			var top []int
			for _, h := range hits {
				top = append(top, byID[h.ID])
			}
			if withFiles {
				r.journal += recall(top)
			} else {
				r.journalText += recall(top)
			}
		}
		qw := wordSet(q.subject)
		r.overlap += recall(overlapTop(train, words, qw, nil, q.at))
		r.overlapFiles += recall(overlapTop(train, words, qw, q.files, q.at))
	}
	if asked == 0 {
		t.Fatalf("no held-back commit shares a file with an earlier one")
	}
	n := float64(asked)
	r.journal, r.journalText, r.overlap, r.overlapFiles = r.journal/n, r.journalText/n, r.overlap/n, r.overlapFiles/n
	slices.Sort(took)
	t.Logf("%s: %d commits (%d rolled back), %d logged in %v; %d held back, %d asked (those sharing a file with an earlier commit)",
		repo, len(cs), len(rolledBack), len(train), logged.Round(time.Millisecond), len(held), asked)
	t.Logf("recall@5: journal (subject and files) %.3f; journal, subject only %.3f; keyword overlap + recency %.3f; "+
		"keyword and file overlap + recency %.3f; similar p50 %v", r.journal, r.journalText, r.overlap, r.overlapFiles, took[len(took)/2].Round(10*time.Microsecond))
	return r
}

// overlapTop ranks the earlier attempts as the first design did: the share
// of the query's keywords (and files, when given) the attempt holds, plus
// a recency bonus of 0.1 that halves every 30 days before the query.
func overlapTop(train []commit, words []map[string]bool, q map[string]bool, files []string, now time.Time) []int {
	type scored struct {
		i     int
		score float64
	}
	keys := len(q) + len(files)
	if keys == 0 {
		return nil
	}
	var ss []scored
	for i, c := range train {
		shared := 0
		for w := range q {
			if words[i][w] {
				shared++
			}
		}
		for _, f := range files {
			if _, ok := slices.BinarySearch(c.files, f); ok {
				shared++
			}
		}
		age := now.Sub(c.at).Hours() / 24
		ss = append(ss, scored{i, float64(shared)/float64(keys) + 0.1*math.Exp2(-max(age, 0)/30)})
	}
	sort.SliceStable(ss, func(a, b int) bool { return ss[a].score > ss[b].score })
	var top []int
	for _, s := range ss[:min(5, len(ss))] {
		top = append(top, s.i)
	}
	return top
}

// wordSet is the keywords of a text: its lower-case words and numbers,
// stop words left out.
func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !dedup.StopWord(w) {
			out[w] = true
		}
	}
	return out
}

func sharesFile(a, b []string) bool {
	for _, f := range b {
		if _, ok := slices.BinarySearch(a, f); ok {
			return true
		}
	}
	return false
}

// readHistory reads a checkout's commits, oldest first, merges left out:
// their messages, files and diffs.
func readHistory(t *testing.T, dir string) []commit {
	t.Helper()
	gitOut := func(args ...string) []byte {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "core.quotepath=off"}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return out
	}
	log := gitOut("log", "--reverse", "--date-order", "--no-merges", "--format=%x1e%H%x1f%cI%x1f%s%x1f%b%x1d", "--name-only")
	var cs []commit
	index := map[string]int{}
	for _, rec := range strings.Split(string(log), "\x1e")[1:] {
		head, files, _ := strings.Cut(rec, "\x1d")
		f := strings.SplitN(head, "\x1f", 4)
		if len(f) != 4 {
			t.Fatalf("git log record %q", head)
		}
		at, err := time.Parse(time.RFC3339, f[1])
		if err != nil {
			t.Fatal(err)
		}
		c := commit{hash: f[0], at: at, subject: f[2], body: strings.TrimSpace(f[3])}
		for _, line := range strings.Split(files, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				c.files = append(c.files, line)
			}
		}
		c.files = lore.CleanFiles(c.files)
		index[c.hash] = len(cs)
		cs = append(cs, c)
	}
	// The diffs, in one stream; a commit whose blobs a clone lacks keeps
	// what git printed of it.
	cmd := exec.Command("git", "-C", dir, "log", "--reverse", "--date-order", "--no-merges", "-p", "--no-color", "--no-ext-diff", "--format=%x1e%H")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var cur *commit
	var b bytes.Buffer
	flush := func() {
		if cur != nil && b.Len() <= 2*lore.MaxAttemptDiff {
			cur.diff = b.String()
		}
		b.Reset()
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) > 0 && line[0] == 0x1e {
			flush()
			cur = nil
			if i, ok := index[string(line[1:])]; ok {
				cur = &cs[i]
			}
			continue
		}
		if b.Len() <= 2*lore.MaxAttemptDiff {
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Logf("git log -p: %v (the diffs read so far are kept)", err)
	}
	if len(cs) < 20 {
		t.Skipf("%s has %d commits: too few to measure", dir, len(cs))
	}
	return cs
}
