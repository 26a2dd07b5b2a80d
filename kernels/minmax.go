package kernels

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// MinMax returns the smallest and largest non-NaT values of src and how many
// there are. With valid == 0, min is math.MaxInt64 and max math.MinInt64.
func MinMax(src []byte, order binary.ByteOrder) (lo, hi int64, valid int, err error) {
	n, err := elements("source", src)
	if err != nil {
		return 0, 0, 0, err
	}
	swap := swapFor(order)
	if w, ok := srcWordsOf(src); ok {
		lo, hi, nat := minMaxWords(w, swap)
		return lo, hi, n - nat, nil
	}
	var s stage
	lo, hi = math.MaxInt64, math.MinInt64
	nat := 0
	for w, _, ok := s.next(src); ok; w, _, ok = s.next(src) {
		l, h, c := minMaxWords(w, swap)
		lo, hi, nat = min(lo, l), max(hi, h), nat+c
	}
	return lo, hi, n - nat, nil
}

// MinMaxInt64 is MinMax for a native slice.
func MinMaxInt64(src []int64) (lo, hi int64, valid int) {
	lo, hi, nat := minMaxWords(int64Words(src), false)
	return lo, hi, len(src) - nat
}

func minMaxWords(src []uint64, swap bool) (lo, hi int64, nat int) {
	lo, hi = math.MaxInt64, math.MinInt64
	for len(src) > 0 {
		k := min(len(src), blockWords)
		n, l, h := minMaxSIMD(src[:k], swap)
		_, l2, h2 := minMaxGeneric(src[n:k], swap)
		lo, hi = min(lo, l, l2), max(hi, h, h2)
		// The NaT count is a second pass over a block that is still in L1.
		nat += countNaTWords(src[:k], swap)
		src = src[k:]
	}
	return lo, hi, nat
}

// minMaxGeneric: NaT is MinInt64, so it never wins a max; for the min it is
// replaced by MaxInt64 (a conditional move, no branch).
func minMaxGeneric(src []uint64, swap bool) (n int, lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	if swap {
		for _, w := range src {
			v := int64(bits.ReverseBytes64(w))
			m := v
			if v == math.MinInt64 {
				m = math.MaxInt64
			}
			lo = min(lo, m)
			hi = max(hi, v)
		}
	} else {
		for _, w := range src {
			v := int64(w)
			m := v
			if v == math.MinInt64 {
				m = math.MaxInt64
			}
			lo = min(lo, m)
			hi = max(hi, v)
		}
	}
	return len(src), lo, hi
}
