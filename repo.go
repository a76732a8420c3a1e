package lore

import "strings"

// RepoMatches reports whether repo is the repository a user asked for
// with want. Case does not matter, and a bare name ("api") matches it
// under any owner ("acme/api"), because sessions whose working folder is
// gone are named by folder while the same repository elsewhere has its
// remote's owner/name, and users type the short form.
func RepoMatches(repo, want string) bool {
	if strings.EqualFold(repo, want) {
		return true
	}
	if !strings.Contains(want, "/") {
		_, name, ok := strings.Cut(repo, "/")
		return ok && strings.EqualFold(name, want)
	}
	return false
}
