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
	cmd.SetArgs(args)
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
}
