package main

// The two meanings of --repo, each written once (lore.RepoMatches and
// lore.SameRepo are the rules): what a person lists, searches or counts,
// and the repository whose notes boot hands out.
const (
	repoFilterFlag = "owner/name, or a bare name for that name under any owner; letters in any case"
	repoScopeFlag  = "owner/name, letters in any case; a bare name is the repository of a folder with no known remote, and no other"

	repoFilterHelp = `--repo owner/name selects that repository, whatever the case of its letters; a
bare name (--repo cli) selects every repository of that name, under any owner
(entireio/cli, acme/cli) or none (cli, a session whose folder's remote is not
known).`
	repoScopeHelp = `The repository is owner/name, whatever the case of its letters, or a bare name
for a folder whose remote is not known. A bare name gets that bare name's notes
only: boot in a folder called cli with no remote is not handed entireio/cli's.`
)
