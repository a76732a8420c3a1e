package transcript

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/lorehq/lore"
)

// repoCache finds the repository of a working directory, once per
// directory: thousands of sessions share a few dozen.
type repoCache struct {
	mu sync.Mutex
	m  map[string]string // cwd → owner/name, "" when the directory is gone
}

func newRepoCache() *repoCache { return &repoCache{m: make(map[string]string)} }

// resolve sets s.Repo: the git remote's owner/name where s.Cwd still
// exists, else what the transcript said, else the cwd's base name.
func (c *repoCache) resolve(s *lore.Session, noGit bool) {
	if s.Cwd == "" {
		return
	}
	if !noGit {
		if r := c.lookup(s.Cwd); r != "" {
			s.Repo = r
			return
		}
	}
	if s.Repo == "" {
		s.Repo = folderRepo(s.Cwd)
	}
}

// RepoOfDir is the repository of a folder, as sessions in it get theirs:
// the git remote's owner/name, else the repository folder's name, else the
// folder's own name (for a worktree, the repository it belongs to). A
// relative dir is taken from the current folder: "." names the folder's
// repository, not a repository called ".".
func RepoOfDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if r := repoOf(dir); r != "" {
		return r
	}
	return folderRepo(dir)
}

// folderRepo names the repository of a folder that is not here to ask
// git: its base name, or for a worktree under REPO/.worktrees/NAME (or
// worktrees/NAME), the REPO its worktrees belong to.
func folderRepo(dir string) string {
	parts := strings.FieldsFunc(dir, func(r rune) bool { return r == '/' || r == '\\' })
	for i := len(parts) - 2; i > 0; i-- {
		if parts[i] == ".worktrees" || parts[i] == "worktrees" {
			return parts[i-1]
		}
	}
	return baseName(dir)
}

func (c *repoCache) lookup(dir string) string {
	c.mu.Lock()
	r, ok := c.m[dir]
	c.mu.Unlock()
	if ok {
		return r
	}
	r = repoOf(dir)
	c.mu.Lock()
	c.m[dir] = r
	c.mu.Unlock()
	return r
}

// repoOf returns the owner/name of the git remote of the repository
// holding dir; the repository folder's name when it has no remote; the
// directory's own name when it is in no repository; "" when it does not
// exist here.
func repoOf(dir string) string {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	for d := dir; ; {
		gitPath := filepath.Join(d, ".git")
		if fi, err := os.Stat(gitPath); err == nil {
			if url := remoteURL(gitConfigPath(gitPath, fi.IsDir())); url != "" {
				if r := RepoFromURL(url); r != "" {
					return r
				}
			}
			return filepath.Base(d)
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return baseName(dir)
}

// gitConfigPath finds the config of the repository whose .git is at
// gitPath: a folder, or a file "gitdir: …" in worktrees and submodules,
// whose common dir holds the config.
func gitConfigPath(gitPath string, isDir bool) string {
	gitDir := gitPath
	if !isDir {
		b, err := os.ReadFile(gitPath)
		if err != nil {
			return ""
		}
		line := strings.TrimSpace(string(b))
		if !strings.HasPrefix(line, "gitdir:") {
			return ""
		}
		gitDir = strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(filepath.Dir(gitPath), gitDir)
		}
		if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
			common := strings.TrimSpace(string(b))
			if !filepath.IsAbs(common) {
				common = filepath.Join(gitDir, common)
			}
			gitDir = common
		}
	}
	return filepath.Join(gitDir, "config")
}

// remoteURL reads the url of remote "origin" from a git config file, or of
// the first remote when there is no origin.
func remoteURL(configPath string) string {
	f, err := os.Open(configPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	var (
		section string
		first   string
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		if !strings.HasPrefix(section, "[remote ") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "url" {
			continue
		}
		v = strings.TrimSpace(v)
		if section == `[remote "origin"]` {
			return v
		}
		if first == "" {
			first = v
		}
	}
	return first
}

// RepoFromURL turns a git remote URL into "owner/name":
// git@github.com:owner/name.git, https://host/owner/name, ssh://…, and
// local paths all give their last two path elements.
func RepoFromURL(url string) string {
	u := strings.TrimSpace(url)
	u = strings.TrimSuffix(u, "/")
	u = strings.TrimSuffix(u, ".git")
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if j := strings.IndexByte(u, '/'); j >= 0 {
			u = u[j+1:]
		} else {
			return ""
		}
	} else if i := strings.IndexByte(u, ':'); i >= 0 && !strings.ContainsAny(u[:i], "/\\") {
		u = u[i+1:] // scp-like git@host:owner/name
	}
	parts := strings.FieldsFunc(u, func(r rune) bool { return r == '/' || r == '\\' })
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return parts[len(parts)-2] + "/" + parts[len(parts)-1]
}

// baseName is the last element of a path written on any system.
func baseName(p string) string {
	p = strings.TrimRight(p, `/\`)
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		p = p[i+1:]
	}
	return p
}
