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
