package main

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// run executes the dt64 command line in-process.
func run(t *testing.T, stdin io.Reader, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := newRootCmd()
	var out, errOut bytes.Buffer
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	cmd.SetIn(stdin)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	// Never nil: cobra takes nil for "no SetArgs" and reads the test
	// binary's own os.Args.
	cmd.SetArgs(append([]string{}, args...))
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

func isUsage(err error) bool {
	var ue usageError
	return errors.As(err, &ue)
}

func TestUnknownCommandIsUsage(t *testing.T) {
	if _, _, err := run(t, nil, "transcod", "a", "b"); !isUsage(err) || !strings.Contains(err.Error(), "transcod") {
		t.Errorf("unknown command: got %v, want a usage error naming it", err)
	}
	out, _, err := run(t, nil)
	if err != nil || !strings.Contains(out, "Available Commands") {
		t.Errorf("dt64 alone: %v, %q", err, out)
	}
	// help of a topic that is no command is one too (cobra's exits 0).
	if _, _, err := run(t, nil, "help", "transcod"); !isUsage(err) || !strings.Contains(err.Error(), `"transcod"`) || !strings.Contains(err.Error(), "did you mean transcode") {
		t.Errorf("help of an unknown topic: %v, want a usage error naming it", err)
	}
	for _, args := range [][]string{{"help"}, {"help", "cast"}} {
		if out, _, err := run(t, nil, args...); err != nil || !strings.Contains(out, "Usage:") {
			t.Errorf("%v: %v, %q", args, err, out)
		}
	}
}

// A mistyped command or flag is answered with the name meant, and
// --version names the build.
func TestDidYouMeanAndVersion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"transcod", "a", "b"}, "did you mean transcode?"},
		{[]string{"transcode", "a", "b", "--units", "us"}, "unknown flag: --units (did you mean --unit?)"},
		{[]string{"inspect", "x", "--jsn"}, "(did you mean --json?)"},
	} {
		_, _, err := run(t, nil, c.args...)
		if !isUsage(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("dt64 %v: %v, want a usage error with %q", c.args, err, c.want)
		}
	}
	if _, _, err := run(t, nil, "transcode", "a", "b", "--frobnicate"); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("a flag nothing resembles got a suggestion: %v", err)
	}
	out, _, err := run(t, nil, "--version")
	if err != nil || !strings.HasPrefix(out, "dt64 ") || !strings.Contains(out, "go1.") {
		t.Errorf("--version: %q, %v", out, err)
	}
}

// --unit's help lists the spellings the unit error lists, and bench
// --sizes states its default once.
func TestUnitSpellingsAgree(t *testing.T) {
	tc := newRootCmd()
	cmd, _, _ := tc.Find([]string{"transcode"})
	help := cmd.Flags().Lookup("unit").Usage
	_, _, err := run(t, nil, "transcode", "a", "b", "--unit", "xx")
	if err == nil {
		t.Fatal("--unit xx accepted")
	}
	list := func(s string) string {
		_, after, _ := strings.Cut(s, "(")
		before, _, _ := strings.Cut(after, ";")
		return strings.TrimPrefix(before, "want one of ")
	}
	if list(help) != list(err.Error()) {
		t.Errorf("--unit help lists %q, its error %q", list(help), list(err.Error()))
	}
	bench, _, _ := tc.Find([]string{"bench"})
	for line := range strings.SplitSeq(bench.Flags().FlagUsages(), "\n") {
		if strings.Contains(line, "--sizes") && strings.Count(line, "(default") != 1 {
			t.Errorf("bench --sizes help gives its default other than once: %q", line)
		}
	}
}

func TestCountPlurals(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{{count(1, "chunk"), "1 chunk"}, {count(0, "chunk"), "0 chunks"}, {count(int64(2), "worker"), "2 workers"}, {count(1, "work unit"), "1 work unit"}} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}
