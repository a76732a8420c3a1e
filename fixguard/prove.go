package fixguard

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/gitexec"
)

// Proof is what proving a guard found.
type Proof struct {
	Commit  string `json:"commit"`
	Proof   string `json:"proof"` // lore.ProofProven, ProofNotProven or ProofNoTest
	Command string `json:"command"`
	// ParentFailed and FixPassed are how the command went on the fix's
	// parent (with the fix's tests) and on the fix.
	ParentFailed bool   `json:"parent_failed"`
	FixPassed    bool   `json:"fix_passed"`
	Output       string `json:"output,omitempty"` // the tail of the run that went against the proof
}

// TestCommand is the command that runs the tests a fix added, "" when it
// added none that lore knows how to run (Go's and pytest's).
func TestCommand(g lore.FixGuard) string {
	var goDirs, goNames, pyTests []string
	for _, t := range g.Tests {
		if !t.Added {
			continue
		}
		switch {
		case strings.HasSuffix(t.File, "_test.go"):
			goDirs = append(goDirs, "./"+path.Dir(t.File))
			goNames = append(goNames, t.Name)
		case strings.HasSuffix(t.File, ".py"):
			pyTests = append(pyTests, shellQuote(t.File+"::"+t.Name))
		}
	}
	switch {
	case len(goNames) > 0:
		slices.Sort(goDirs)
		slices.Sort(goNames)
		return fmt.Sprintf("go test -count=1 -run '^(%s)$' %s", strings.Join(slices.Compact(goNames), "|"), strings.Join(slices.Compact(goDirs), " "))
	case len(pyTests) > 0:
		return "python -m pytest -q " + strings.Join(pyTests, " ")
	}
	return ""
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Prove runs command (TestCommand when empty) on the fix's parent, with
// the fix's test files put in, and on the fix, each in a temporary folder
// of its own that git archive fills (nothing is written to the
// repository): a guard is proven when the command fails on the parent and
// passes on the fix.
func Prove(ctx context.Context, r *Repo, g lore.FixGuard, command string) (Proof, error) {
	p := Proof{Commit: g.Commit, Command: command}
	if p.Command == "" {
		p.Command = TestCommand(g)
	}
	if p.Command == "" {
		p.Proof = lore.ProofNoTest
		return p, nil
	}
	if g.Parent == "" {
		return p, fmt.Errorf("fix %s is a root commit: there is no parent to fail on", lore.ShortCommit(g.Commit))
	}
	tmp, err := os.MkdirTemp("", "lore-guard-")
	if err != nil {
		return p, err
	}
	defer os.RemoveAll(tmp)
	fixDir, parentDir := filepath.Join(tmp, "fix"), filepath.Join(tmp, "parent")
	if err := extract(ctx, r, g.Commit, fixDir); err != nil {
		return p, err
	}
	if err := extract(ctx, r, g.Parent, parentDir); err != nil {
		return p, err
	}
	for _, t := range g.Tests {
		b, err := os.ReadFile(filepath.Join(fixDir, filepath.FromSlash(t.File)))
		if err != nil {
			continue // the fix deleted it
		}
		dst := filepath.Join(parentDir, filepath.FromSlash(t.File))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return p, err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return p, err
		}
	}
	parentOut, parentErr := runIn(ctx, parentDir, p.Command)
	if ctx.Err() != nil {
		return p, ctx.Err()
	}
	fixOut, fixErr := runIn(ctx, fixDir, p.Command)
	if ctx.Err() != nil {
		return p, ctx.Err()
	}
	p.ParentFailed, p.FixPassed = parentErr != nil, fixErr == nil
	switch {
	case p.ParentFailed && p.FixPassed:
		p.Proof = lore.ProofProven
	case !p.FixPassed:
		p.Proof, p.Output = lore.ProofNotProven, tail(fixOut, 2000)
	default:
		p.Proof, p.Output = lore.ProofNotProven, tail(parentOut, 2000)
	}
	return p, nil
}

func runIn(ctx context.Context, dir, command string) (string, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func tail(s string, n int) string {
	if len(s) > n {
		s = s[len(s)-n:]
	}
	return strings.TrimSpace(strings.ToValidUTF8(s, ""))
}

// extract writes the tree of commit into dir, through git archive.
func extract(ctx context.Context, r *Repo, commit, dir string) error {
	cmd := gitCmd(ctx, r.Dir, "archive", "--format=tar", commit)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return gitexec.Error(err, "")
	}
	terr := untar(out, dir)
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return gitexec.Error(err, stderr.String())
	}
	return terr
}

func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read git archive: %w", err)
		}
		name := path.Clean(h.Name)
		if name == "." || strings.HasPrefix(name, "../") || path.IsAbs(name) {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			os.MkdirAll(filepath.Dir(dst), 0o755)
			os.Symlink(h.Linkname, dst)
		}
	}
}
