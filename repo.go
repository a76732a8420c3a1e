package lore

import "strings"

// A repository is named by a string, wherever lore keeps one (an item's
// scope, a session's, a boot's):
//
//   - "owner/name", from the git remote of the session's folder or one the
//     transcript names (github.com/acme/api gives acme/api);
//   - a bare "name", the folder's own, when no remote could be found: the
//     folder is gone and nothing on this machine or in the transcript
//     says whose it was, or it has no remote.
//
// Two rules decide which names meet, and every store, command and boot
// goes through them:
//
//   - SameRepo is identity. Letters compare whatever their case, as
//     GitHub's names do, and a bare name is the same only as that bare
//     name: "cli" is not "entireio/cli", as two projects called cli on one
//     machine are not one project. Boot uses it, so that no repository is
//     handed another's notes.
//   - RepoMatches is what a person means by a --repo filter: owner/name is
//     that repository (SameRepo), and a bare name is every repository of
//     that name, bare or under any owner, as one types the short name of
//     the repository one has in mind. It only ever widens a listing or a
//     count a person asked for.
//
// Case is folded for ASCII letters only, as SQLite's NOCASE does: a store
// must select exactly what these functions say (the storetest suite holds
// every store to it), and the names git hosts allow are ASCII.

// SameRepo reports whether a and b name one repository. An empty name is
// no repository, and the same as none.
func SameRepo(a, b string) bool {
	return a != "" && equalFoldASCII(a, b)
}

// RepoMatches reports whether repo is selected by want, a repository a
// person named: owner/name selects that repository, a bare name selects
// it bare and under any owner ("api" selects "api" and "acme/api", not
// "acme/api-v2"). An empty want selects nothing; callers that mean "any
// repository" do not filter.
func RepoMatches(repo, want string) bool {
	if SameRepo(repo, want) {
		return true
	}
	if want == "" || strings.Contains(want, "/") {
		return false
	}
	_, name, ok := strings.Cut(repo, "/")
	return ok && equalFoldASCII(name, want)
}

// SelectsRepo reports whether the repository part of f (Repo, AnyOwner,
// NoRepo) selects an item of repo: what a store's filter does, in Go.
func (f Filter) SelectsRepo(repo string) bool {
	switch {
	case f.NoRepo && repo != "":
		return false
	case f.Repo == "":
		return true
	case f.AnyOwner:
		return RepoMatches(repo, f.Repo)
	}
	return SameRepo(repo, f.Repo)
}

// RepoKey is the form of a repository name that SameRepo compares, for
// keying maps: two names are one repository when their keys are equal
// and not empty.
func RepoKey(name string) string {
	b := []byte(name)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// equalFoldASCII is strings.EqualFold for ASCII letters only.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
