package main

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// version is the module version of this build (a tag or pseudo-version
// when installed with go install; "(devel)" when built in the tree) and,
// where the build recorded it, the VCS revision and its time.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown version: built without module information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" {
		v += fmt.Sprintf(" (revision %.12s %s%s)", rev, at, dirty)
	}
	return v + ", " + bi.GoVersion
}

// flagSuggestion adds "did you mean --x?" to an unknown flag error when
// one of the command's flags is a small edit away (--units for --unit).
func flagSuggestion(cmd *cobra.Command, err error) error {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return err
	}
	best, bestD := "", 3 // at most two edits
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if d := editDistance(name, f.Name); d < bestD || (d == bestD && strings.HasPrefix(f.Name, name)) {
			best, bestD = f.Name, d
		}
	})
	if best == "" {
		return err
	}
	return errors.New(msg + " (did you mean --" + best + "?)")
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// count says n things in English: "1 chunk", "3 chunks", "0 arrays".
func count[T ~int | ~int64](n T, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
