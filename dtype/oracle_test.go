package dtype

// Tests against vectors generated with NumPy 1.24.2 (tools/oracle/gen.py,
// committed in testdata/oracle). A missing vector file fails the test: the
// vectors are part of the repository, never optional.

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const oracleDir = "../testdata/oracle"

// readOracle calls fn for every line of a JSON Lines vector file.
func readOracle(t *testing.T, name string, fn func(line int, raw []byte)) int {
	t.Helper()
	path := filepath.Join(oracleDir, name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("oracle vectors missing (generate them with tools/oracle/gen.py): %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		fn(n, sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if n == 0 {
		t.Fatalf("%s is empty", path)
	}
	return n
}

func oracleKind(t *testing.T, s string) Kind {
	t.Helper()
	switch s {
	case "datetime64":
		return Datetime
	case "timedelta64":
		return Timedelta
	}
	t.Fatalf("unknown kind %q in vectors", s)
	return 0
}

func oracleType(t *testing.T, kind Kind, unit string, scale int64) DataType {
	t.Helper()
	u, err := ParseUnit(unit)
	if err != nil {
		t.Fatalf("vectors: %v", err)
	}
	return DataType{Kind: kind, Unit: u, Scale: scale}
}

func oracleOrder(t *testing.T, s string) binary.ByteOrder {
	t.Helper()
	switch s {
	case "<":
		return binary.LittleEndian
	case ">":
		return binary.BigEndian
	case "=", "|":
		return NativeOrder()
	}
	t.Fatalf("unknown byte order %q in vectors", s)
	return nil
}

func TestOracleCanCast(t *testing.T) {
	n := readOracle(t, "can_cast.jsonl", func(line int, raw []byte) {
		var v struct {
			Kind     string
			SrcUnit  string `json:"src_unit"`
			SrcScale int64  `json:"src_scale"`
			DstUnit  string `json:"dst_unit"`
			DstScale int64  `json:"dst_scale"`
			SrcOrder string `json:"src_order"`
			DstOrder string `json:"dst_order"`
			Level    string
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		o := &v
		k := oracleKind(t, v.Kind)
		from, to := oracleType(t, k, v.SrcUnit, v.SrcScale), oracleType(t, k, v.DstUnit, v.DstScale)
		want, err := ParseCasting(v.Level)
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		got := Safety(from, to, oracleOrder(t, o.SrcOrder), oracleOrder(t, o.DstOrder))
		if got != want {
			t.Errorf("line %d: Safety(%s%s, %s%s) = %s, NumPy says %s", line, o.SrcOrder, from, o.DstOrder, to, got, want)
		}
		if o.SrcOrder == o.DstOrder {
			for r := CastNo; r <= CastUnsafe; r++ {
				if CanCast(from, to, r) != (want <= r) {
					t.Errorf("line %d: CanCast(%s, %s, %s) = %v", line, from, to, r, !(want <= r))
				}
			}
		}
	})
	t.Logf("%d can_cast vectors", n)
}

// dtypeStringDeviations are the NumPy dtype strings where dt64 deliberately
// differs from NumPy 1.24.2, with the reason. Every entry must still
// deviate (a stale entry fails the test).
var dtypeStringDeviations = map[string]string{
	"M8[0s]":            "scale 0: NumPy accepts it but crashes casting it; the Zarr spec requires >= 1",
	"M8[-0s]":           "scale 0 (and a sign)",
	"m8[0s]":            "scale 0",
	"M8[0generic]":      "scale 0",
	"M8[+1s]":           "a signed scale: NumPy's strtol takes '+'; dt64 wants plain digits",
	"M8[ 10s]":          "white space before the scale: NumPy's strtol skips it; dt64 wants plain digits",
	"M8[s/-1]":          "a negative divisor: NumPy makes the negative scale [-1000ms]",
	"m8[s/-2]":          "a negative divisor: NumPy makes the negative scale [-500ms]",
	"M8[2147483647s/2]": "NumPy wraps 2147483647*500 to the negative scale [-500ms]; dt64: scale out of range",
}

func TestOracleDtypeStrings(t *testing.T) {
	used := map[string]bool{}
	n := readOracle(t, "dtype_strings.jsonl", func(line int, raw []byte) {
		var v struct {
			Input     string
			Str       *string
			DtypeStr  *string `json:"dtype_str"`
			Name      *string
			Byteorder *string
			Unit      *string
			Scale     *int64
			Error     *string
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		d, order, err := ParseNumPy(v.Input)
		if reason, ok := dtypeStringDeviations[v.Input]; ok {
			used[v.Input] = true
			if v.Error != nil || err == nil {
				t.Errorf("line %d: %q is listed as a deliberate deviation (%s) but NumPy error=%v, dt64 error=%v",
					line, v.Input, reason, v.Error != nil, err)
			}
			var pe *ParseError
			if err != nil && !errors.As(err, &pe) {
				t.Errorf("line %d: %q: error %T is not a *ParseError", line, v.Input, err)
			}
			return
		}
		if v.Error != nil {
			if err == nil {
				t.Errorf("line %d: ParseNumPy(%q) = %s, but NumPy fails: %s", line, v.Input, d, *v.Error)
			}
			return
		}
		if err != nil {
			t.Errorf("line %d: ParseNumPy(%q): %v; NumPy gives %s", line, v.Input, err, *v.DtypeStr)
			return
		}
		want := oracleType(t, d.Kind, *v.Unit, *v.Scale)
		if d != want {
			t.Errorf("line %d: ParseNumPy(%q) = %+v, NumPy (%s, %d)", line, v.Input, d, *v.Unit, *v.Scale)
		}
		// The vectors come from a little-endian host: NumPy reports '=' for
		// '<', '=', '|' and no prefix there, and '>' for '>'. On any host an
		// explicit prefix wins and the rest is the host's order.
		if (*v.Byteorder == ">") != strings.HasPrefix(v.Input, ">") {
			t.Fatalf("line %d: vectors not from a little-endian host? %q byteorder %q", line, v.Input, *v.Byteorder)
		}
		wantOrder := NativeOrder()
		switch {
		case strings.HasPrefix(v.Input, "<"):
			wantOrder = binary.LittleEndian
		case strings.HasPrefix(v.Input, ">"):
			wantOrder = binary.BigEndian
		}
		if order != wantOrder {
			t.Errorf("line %d: ParseNumPy(%q) order %v, want %v", line, v.Input, order, wantOrder)
		}
		wantStr, wantName := *v.DtypeStr, *v.Name
		if wantOrder == binary.BigEndian {
			wantStr = ">" + wantStr[1:]
		}
		if d.Unit == Generic && d.Scale != 1 {
			// Deliberate: dt64 keeps a generic scale so the string round-trips;
			// NumPy's dtype.str and str() drop it.
			wantStr = wantStr + "[" + d.unitString() + "]"
			wantName = wantName + "[" + d.unitString() + "]"
		}
		if got := d.NumPy(order); got != wantStr {
			t.Errorf("line %d: %q: NumPy(order) = %q, NumPy's dtype.str %q", line, v.Input, got, wantStr)
		}
		if got := d.String(); got != wantName {
			t.Errorf("line %d: %q: String() = %q, NumPy's dtype.name %q", line, v.Input, got, wantName)
		}
		if HasByteOrder(v.Input) != (strings.HasPrefix(v.Input, ">") || strings.HasPrefix(v.Input, "<")) {
			t.Errorf("line %d: HasByteOrder(%q) = %v", line, v.Input, HasByteOrder(v.Input))
		}
		// The formatted string parses back to the same type and order.
		d2, order2, err := ParseNumPy(d.NumPy(order))
		if err != nil || d2 != d || order2 != order {
			t.Errorf("line %d: round trip of %q: %+v %v %v", line, d.NumPy(order), d2, order2, err)
		}
	})
	for in := range dtypeStringDeviations {
		if !used[in] {
			t.Errorf("deviation %q is not in the vectors any more; remove it from the list", in)
		}
	}
	t.Logf("%d dtype string vectors, %d deliberate deviations", n, len(dtypeStringDeviations))
}

type castVector struct {
	Kind     string
	SrcUnit  string `json:"src_unit"`
	SrcScale int64  `json:"src_scale"`
	DstUnit  string `json:"dst_unit"`
	DstScale int64  `json:"dst_scale"`
	Path     string
	Num      *int64
	Denom    *int64
	Error    *struct{ Type, Message string }
	In       []int64
	Exact    []string
}

func TestOracleCasts(t *testing.T) {
	for _, name := range []string{"casts_datetime64.jsonl", "casts_timedelta64.jsonl"} {
		t.Run(name, func(t *testing.T) {
			var elements, wrapped int
			n := readOracle(t, name, func(line int, raw []byte) {
				var v castVector
				if err := json.Unmarshal(raw, &v); err != nil {
					t.Fatalf("line %d: %v", line, err)
				}
				e, w := checkCastVector(t, line, &v)
				elements += e
				if w {
					wrapped++
				}
			})
			t.Logf("%d pairs (%d with NumPy's factor wrapped), %d linear elements checked against the exact result", n, wrapped, elements)
		})
	}
}

// checkCastVector checks one dtype pair: the plan's path, NumPy's factor
// (NumPyFactor), and for linear plans the exact factor against every
// element's exact result.
func checkCastVector(t *testing.T, line int, v *castVector) (elements int, wrapped bool) {
	t.Helper()
	k := oracleKind(t, v.Kind)
	from, to := oracleType(t, k, v.SrcUnit, v.SrcScale), oracleType(t, k, v.DstUnit, v.DstScale)
	at := func() string { return from.String() + " -> " + to.String() }
	conv, err := NewConversion(from, to)
	num, den, wrapped, ferr := numpyFactor(from, to)
	if api, aden, aerr := NumPyFactor(from, to); api != num || aden != den || (aerr == nil) != (ferr == nil) {
		t.Errorf("line %d %s: NumPyFactor and numpyFactor disagree", line, at())
	}

	if v.Error != nil && v.Error.Type == "ValueError" {
		if !errors.Is(err, ErrToGeneric) {
			t.Errorf("line %d %s: NewConversion error %v, want ErrToGeneric (NumPy: %s)", line, at(), err, v.Error.Message)
		}
		if !errors.Is(ferr, ErrToGeneric) {
			t.Errorf("line %d %s: NumPyFactor error %v, want ErrToGeneric", line, at(), ferr)
		}
		return 0, false
	}
	if err != nil {
		t.Errorf("line %d %s: NewConversion: %v", line, at(), err)
		return 0, false
	}

	// Path. Deliberate: from generic dt64 copies; NumPy runs its linear loop
	// with factor 1/1 (the same values) or, for datetime generic -> Y/M, a
	// calendar loop that crashes on every value but NaT.
	wantPath := map[string]Path{"copy": PathCopy, "linear": PathLinear, "calendar": PathCalendar}[v.Path]
	if from.Unit == Generic {
		wantPath = PathCopy
	}
	if conv.Path != wantPath {
		t.Errorf("line %d %s: Path %s, NumPy %s", line, at(), conv.Path, v.Path)
	}

	// NumPy's factor.
	if v.Error != nil && v.Error.Type == "OverflowError" {
		var fe *FactorOverflowError
		if !errors.As(ferr, &fe) || fe.Error() != v.Error.Message {
			t.Errorf("line %d %s: NumPyFactor error %v, NumPy %q", line, at(), ferr, v.Error.Message)
		}
	} else if ferr != nil || v.Num == nil || num != *v.Num || den != *v.Denom {
		t.Errorf("line %d %s: NumPyFactor = %d/%d, %v; NumPy %v/%v", line, at(), num, den, ferr, ptr(v.Num), ptr(v.Denom))
	}

	// dt64's exact factor equals NumPy's wherever NumPy's did not wrap.
	fn, fd := conv.Factor()
	if conv.Path == PathLinear && ferr == nil && !wrapped &&
		(fn.Cmp(big.NewInt(num)) != 0 || fd.Cmp(big.NewInt(den)) != 0) {
		t.Errorf("line %d %s: exact factor %s/%s, NumPy's (not wrapped) %d/%d", line, at(), fn, fd, num, den)
	}
	if conv.Path != PathLinear && (fn.Cmp(big.NewInt(1)) != 0 || fd.Cmp(big.NewInt(1)) != 0) {
		t.Errorf("line %d %s: %s plan has factor %s/%s, want 1/1", line, at(), conv.Path, fn, fd)
	}

	// Every element of a linear or copy plan: floor(v*num/den) is the exact result.
	if conv.Path == PathCalendar {
		return 0, wrapped
	}
	if len(v.Exact) != len(v.In) {
		t.Fatalf("line %d: %d inputs, %d exact results", line, len(v.In), len(v.Exact))
	}
	var q, m big.Int
	for i, x := range v.In {
		got := "-9223372036854775808"
		if x != NaT {
			q.Mul(big.NewInt(x), fn)
			q.DivMod(&q, fd, &m) // Euclidean; fd > 0, so this is floor
			got = q.String()
		}
		if got != v.Exact[i] {
			t.Errorf("line %d %s: v=%d: floor(v*%s/%s) = %s, exact %s", line, at(), x, fn, fd, got, v.Exact[i])
		}
		elements++
	}
	return elements, wrapped
}

func ptr(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
