package dtype

import "testing"

// The zero Unit is no unit: options can leave it unset, and no data type
// has it.
func TestNoUnit(t *testing.T) {
	var u Unit
	if u != NoUnit || u.Valid() {
		t.Fatalf("zero Unit = %v, valid %v", u, u.Valid())
	}
	if _, err := ParseUnit(""); err == nil {
		t.Error(`ParseUnit("") accepted`)
	}
	if err := (DataType{Kind: Datetime, Scale: 1}).Validate(); err == nil {
		t.Error("a data type without a unit validates")
	}
	for _, name := range []string{"Y", "generic", "ns"} {
		if v, err := ParseUnit(name); err != nil || v == NoUnit || v.String() != name {
			t.Errorf("%s: %v, %v", name, v, err)
		}
	}
}
