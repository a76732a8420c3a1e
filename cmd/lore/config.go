package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/atomicfile"
	"github.com/lorehq/lore/transcript"
	"github.com/spf13/cobra"
)

// config is $LORE_HOME/config.toml: settings a person keeps rather than
// types every time. Every part is optional; a flag or an environment
// variable given wins over it.
type config struct {
	// Store is the default store (after --store and LORE_STORE).
	Store string `toml:"store,omitempty"`
	Boot  struct {
		Budget        int     `toml:"budget,omitempty"`
		MinConfidence float64 `toml:"min_confidence,omitempty"`
		Holdout       float64 `toml:"holdout,omitempty"`
	} `toml:"boot,omitempty"`
	Sessions struct {
		// ExcludeAgents are never listed, sampled, harvested or measured.
		ExcludeAgents []string `toml:"exclude_agents,omitempty"`
		// ExcludePaths are globs (path.Match, ~ for the home) of
		// transcripts left alone: a cron job's sessions.
		ExcludePaths []string `toml:"exclude_paths,omitempty"`
		// ExtraPaths are looked in besides the agents' default places
		// when no PATH is given: Aider's projects.
		ExtraPaths []string `toml:"extra_paths,omitempty"`
	} `toml:"sessions,omitempty"`
}

// configKeys are the keys lore config get and set know, as dotted paths.
var configKeys = []string{"store", "boot.budget", "boot.min_confidence", "boot.holdout",
	"sessions.exclude_agents", "sessions.exclude_paths", "sessions.extra_paths"}

// configPath is where the config file is: $LORE_CONFIG, else
// config.toml in lore's folder (loreHome); "" with neither.
func configPath(env transcript.Env) string {
	if p := strings.TrimSpace(getenv(env, "LORE_CONFIG")); p != "" {
		return p
	}
	if home := loreHome(env); home != "" {
		return filepath.Join(home, "config.toml")
	}
	return ""
}

var errNoConfigHome = errors.New("no home folder to keep the settings in: set LORE_HOME or LORE_CONFIG")

// loadConfig reads the config file; none is an empty config. A file lore
// cannot read is an error that names it and says what is wrong.
func loadConfig(env transcript.Env) (config, error) {
	var c config
	p := configPath(env)
	if p == "" {
		return c, nil // no home: no settings
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("config %s: %w", p, err)
	}
	md, err := toml.Decode(string(b), &c)
	if err != nil {
		return c, fmt.Errorf("config %s: %v (lore config path, lore config set fix it)", p, err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		return c, fmt.Errorf("config %s: unknown key %s; known: %s", p, un[0], strings.Join(configKeys, ", "))
	}
	if err := c.check(); err != nil {
		return c, fmt.Errorf("config %s: %w", p, err)
	}
	c.Store = expandHome(env, c.Store)
	for _, ps := range []*[]string{&c.Sessions.ExcludePaths, &c.Sessions.ExtraPaths} {
		for i, p := range *ps {
			(*ps)[i] = expandHome(env, p)
		}
	}
	return c, nil
}

// check says what is wrong with values the file holds.
func (c config) check() error {
	b := c.Boot
	switch {
	case b.Budget < 0:
		return errors.New("boot.budget must be positive")
	case b.MinConfidence < 0 || b.MinConfidence > 1:
		return errors.New("boot.min_confidence must be between 0 and 1")
	case b.Holdout < 0 || b.Holdout > 1:
		return errors.New("boot.holdout must be between 0 and 1")
	}
	for _, a := range c.Sessions.ExcludeAgents {
		if !slices.Contains(lore.Agents, a) {
			return fmt.Errorf("sessions.exclude_agents: unknown agent %q", a)
		}
	}
	for _, p := range c.Sessions.ExcludePaths {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("sessions.exclude_paths: %q is no glob: %v", p, err)
		}
	}
	return nil
}

func expandHome(env transcript.Env, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		return filepath.Join(env.Home, p[1:])
	}
	return p
}

// excluded reports whether the config leaves a session alone.
func (c config) excluded(s *lore.Session) bool {
	if slices.Contains(c.Sessions.ExcludeAgents, s.Agent) {
		return true
	}
	for _, g := range c.Sessions.ExcludePaths {
		if globHolds(g, s.Path) {
			return true
		}
	}
	return false
}

// globHolds reports whether glob matches p or a folder p is in.
func globHolds(glob, p string) bool {
	for d := filepath.ToSlash(p); d != "." && d != "/" && d != ""; d = path.Dir(d) {
		if ok, _ := path.Match(filepath.ToSlash(glob), d); ok {
			return true
		}
	}
	return false
}

func newConfigCmd(fac *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Read and change lore's settings file",
		Long: `lore's settings live in config.toml in $LORE_HOME (~/.lore), or the file
$LORE_CONFIG names. Every setting is optional, and a flag or an environment variable
given wins over it:

  store = "~/lore/team.db"            # the store (after --store and LORE_STORE)
  [boot]
  budget = 1500                       # lore boot --budget
  min_confidence = 0.8                # lore boot --min-confidence
  holdout = 0.1                       # lore boot --holdout (after LORE_HOLDOUT)
  [sessions]
  exclude_agents = ["hermes"]         # never listed, sampled, harvested or measured
  exclude_paths = ["~/cron/*"]        # transcripts under these globs are left alone
  extra_paths = ["~/code/aider"]      # looked in besides the agents' own places

Keys: ` + strings.Join(configKeys, ", ") + `.`,
		Example: `  lore config path
  lore config get boot.budget
  lore config set boot.budget 1500
  lore config set sessions.exclude_agents hermes,goose
  lore config --json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := loadConfig(fac.Env)
			if err != nil {
				return err
			}
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
				return writeJSON(fac.IO.Out, c)
			}
			return toml.NewEncoder(fac.IO.Out).Encode(c)
		},
	}
	cmd.Flags().Bool("json", false, "print the settings as JSON")
	cmd.AddCommand(&cobra.Command{
		Use:   "path",
		Short: "Print where the settings file is",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := configPath(fac.Env)
			if p == "" {
				return errNoConfigHome
			}
			_, err := fmt.Fprintln(fac.IO.Out, p)
			return err
		},
	}, &cobra.Command{
		Use:   "get KEY",
		Short: "Print one setting",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := configFor(fac.Env, args[0])
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(fac.IO.Out, c.get(args[0]))
			return err
		},
	}, &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Change one setting (a list: values between commas; empty: unset)",
		Args:  exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := configFor(fac.Env, args[0])
			if err != nil {
				return err
			}
			if err := c.set(args[0], args[1]); err != nil {
				return usageError{err}
			}
			if err := c.check(); err != nil {
				return usageError{err}
			}
			var b bytes.Buffer
			if err := toml.NewEncoder(&b).Encode(c); err != nil {
				return err
			}
			p := configPath(fac.Env)
			if p == "" {
				return errNoConfigHome
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				return err
			}
			return atomicfile.WriteFile(p, b.Bytes(), 0o600)
		},
	})
	return cmd
}

// configFor reads the settings to get or set key, a key lore knows.
func configFor(env transcript.Env, key string) (config, error) {
	if !slices.Contains(configKeys, key) {
		return config{}, usagef("unknown key %q; known: %s", key, strings.Join(configKeys, ", "))
	}
	return loadConfig(env)
}

// get is a setting as lore config get prints it.
func (c config) get(key string) string {
	switch key {
	case "store":
		return c.Store
	case "boot.budget":
		return strconv.Itoa(c.Boot.Budget)
	case "boot.min_confidence":
		return strconv.FormatFloat(c.Boot.MinConfidence, 'g', -1, 64)
	case "boot.holdout":
		return strconv.FormatFloat(c.Boot.Holdout, 'g', -1, 64)
	case "sessions.exclude_agents":
		return strings.Join(c.Sessions.ExcludeAgents, ",")
	case "sessions.exclude_paths":
		return strings.Join(c.Sessions.ExcludePaths, ",")
	case "sessions.extra_paths":
		return strings.Join(c.Sessions.ExtraPaths, ",")
	}
	return ""
}

// set changes a setting from its text.
func (c *config) set(key, value string) error {
	list := func() []string {
		var out []string
		for _, v := range strings.Split(value, ",") {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, v)
			}
		}
		return out
	}
	number := func() (float64, error) {
		if value == "" {
			return 0, nil
		}
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return 0, fmt.Errorf("%s takes a number, not %q", key, value)
		}
		return f, nil
	}
	var err error
	switch key {
	case "store":
		c.Store = value
	case "boot.budget":
		var f float64
		f, err = number()
		c.Boot.Budget = int(f)
	case "boot.min_confidence":
		c.Boot.MinConfidence, err = number()
	case "boot.holdout":
		c.Boot.Holdout, err = number()
	case "sessions.exclude_agents":
		c.Sessions.ExcludeAgents = list()
	case "sessions.exclude_paths":
		c.Sessions.ExcludePaths = list()
	case "sessions.extra_paths":
		c.Sessions.ExtraPaths = list()
	}
	return err
}
