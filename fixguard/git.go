package fixguard

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lorehq/lore/internal/gitexec"
)

// ErrNotRepo is returned for a folder that is in no git repository.
var ErrNotRepo = errors.New("not a git repository")

// gitCmd and gitOut are git as lore runs it (internal/gitexec).
var (
	gitCmd = gitexec.Command
	gitOut = gitexec.Output
)

// gitStream runs git and hands its output to read as it comes; stdin,
// when not nil, is fed to it.
func gitStream(ctx context.Context, dir string, stdin io.Reader, read func(*bufio.Reader) error, args ...string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stderr bytes.Buffer
	cmd := gitCmd(ctx, dir, args...)
	cmd.Stderr = &stderr
	cmd.Stdin = stdin
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return gitexec.Error(err, "")
	}
	rerr := read(bufio.NewReaderSize(out, 256<<10))
	if rerr != nil {
		cancel()
		io.Copy(io.Discard, out)
		cmd.Wait()
		return rerr
	}
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return gitexec.Error(err, stderr.String())
	}
	return nil
}

// Repo is a git repository lore guard reads.
type Repo struct {
	Dir     string // a folder in it, where git runs
	Root    string // its work tree's root; "" for a bare repository
	Shallow bool   // a shallow clone: history before its graft is not here
}

// Open finds the repository of dir. A folder in none is ErrNotRepo,
// wrapped with the folder.
func Open(ctx context.Context, dir string) (*Repo, error) {
	out, err := gitOut(ctx, dir, "rev-parse", "--is-bare-repository", "--is-shallow-repository", "--show-toplevel")
	if err != nil {
		if strings.Contains(err.Error(), "not a git repository") {
			return nil, fmt.Errorf("%s: %w", dir, ErrNotRepo)
		}
		return nil, err
	}
	f := strings.Fields(string(out))
	r := &Repo{Dir: dir}
	if len(f) >= 2 {
		r.Shallow = f[1] == "true"
	}
	if len(f) >= 3 && f[0] != "true" {
		r.Root = strings.TrimSpace(strings.SplitN(string(out), "\n", 3)[2])
	}
	return r, nil
}

// HasCommits reports whether the repository has a HEAD commit.
func (r *Repo) HasCommits(ctx context.Context) bool {
	_, err := gitOut(ctx, r.Dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	return err == nil
}

// Resolve returns the commit rev names, 40 hex digits.
func (r *Repo) Resolve(ctx context.Context, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("%q is not a revision", rev)
	}
	out, err := gitOut(ctx, r.Dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s: no such commit in this repository", rev)
	}
	return strings.TrimSpace(string(out)), nil
}

// ShallowNote says what a shallow clone hides, "" for a full one.
func (r *Repo) ShallowNote(ctx context.Context) string {
	if !r.Shallow {
		return ""
	}
	// The commits at the graft have no parents here; the oldest of their
	// dates is where the history seen begins.
	b, _ := gitOut(ctx, r.Dir, "log", "--max-parents=0", "--format=%as", "HEAD")
	dates := strings.Fields(string(b))
	slices.Sort(dates)
	since := ""
	if len(dates) > 0 {
		since = dates[0]
	}
	msg := "a shallow clone: the history before its oldest commit"
	if since != "" {
		msg += " (" + since + ")"
	}
	return msg + " is not here, so fixes made before it and reverts naming them are not seen; run git fetch --unshallow to see them"
}
