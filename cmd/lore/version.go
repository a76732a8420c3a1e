package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version or the VCS revision is used.
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := revision()
	if rev == "" {
		return "devel"
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel-" + rev
}

// revision is the commit lore was built from (its first 12 digits), and
// whether the tree had changes; "" when the build did not record it (go
// build -buildvcs=false, or outside a git checkout). A build by go install
// …@version records none, and its version names the commit instead.
func revision() (rev string, dirty bool) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", false
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	return rev[:min(len(rev), 12)], dirty
}

// versionLine is what lore version, lore --version and lore -v print:
// "lore v1.2.0 (commit 1a2b3c4d5e6f, go1.26.0 linux/amd64)".
func versionLine() string {
	v := versionString()
	built := fmt.Sprintf("%s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if rev, _ := revision(); rev != "" && !strings.Contains(v, rev) {
		built = "commit " + rev + ", " + built
	}
	return fmt.Sprintf("lore %s (%s)\n", v, built)
}

func newVersionCmd(fac *factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print lore's version",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				rev, _ := revision()
				return writeJSON(fac.IO.Out, map[string]string{
					"version": versionString(), "commit": rev, "go": runtime.Version(),
					"os": runtime.GOOS, "arch": runtime.GOARCH,
				})
			}
			fmt.Fprint(fac.IO.Out, versionLine())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
