package bench

import (
	"strings"
	"testing"
)

// The harness checks what the command under test wrote: a "cast" that
// leaves an empty file is an error, not a fast result.
func TestMeasureCastFileChecksOutput(t *testing.T) {
	// sh -c SCRIPT sh cast --from F --to T SRC DST --no-sync: DST is $7.
	fake := []string{"sh", "-c", `: > "$7"`, "sh"}
	_, err := MeasureCastFile(CastFileOptions{Dt64: fake, Dir: t.TempDir(), Size: 4096, Rounds: 1})
	if err == nil || !strings.Contains(err.Error(), "has 0 bytes, want 4096") {
		t.Errorf("got %v, want an error about the output's size", err)
	}
	for _, o := range []CastFileOptions{{Dt64: fake, Size: 4095, Rounds: 1}, {Dt64: fake, Size: 4096}, {Size: 4096, Rounds: 1}} {
		o.Dir = t.TempDir()
		if _, err := MeasureCastFile(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}
