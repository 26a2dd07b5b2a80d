package kernels

import (
	"math"
	"math/big"

	"github.com/zarr-dt64/dt64/dtype"
)

// An independent exact reference in math/big, written from exact_cast in
// tools/oracle/model.py (the model the NumPy oracle vectors come from): the
// instant in attoseconds, the proleptic Gregorian calendar, floor everywhere. It also says whether the result is
// lossy, which the oracle vectors do not record.

var refAttos = map[dtype.Unit]string{
	dtype.Year: "31556952000000000000000000", dtype.Month: "2629746000000000000000000",
	dtype.Week: "604800000000000000000000", dtype.Day: "86400000000000000000000",
	dtype.Hour: "3600000000000000000000", dtype.Minute: "60000000000000000000",
	dtype.Second: "1000000000000000000", dtype.Millisecond: "1000000000000000",
	dtype.Microsecond: "1000000000000", dtype.Nanosecond: "1000000000",
	dtype.Picosecond: "1000000", dtype.Femtosecond: "1000", dtype.Attosecond: "1",
}

func bi(v int64) *big.Int { return big.NewInt(v) }

func attos(u dtype.Unit) *big.Int {
	n, _ := new(big.Int).SetString(refAttos[u], 10)
	return n
}

// floorDivMod: big.Int's DivMod is Euclidean, which is floor for d > 0.
func floorDivMod(a, d *big.Int) (*big.Int, *big.Int) {
	return new(big.Int).DivMod(a, d, new(big.Int))
}

func refDaysFromCivil(y *big.Int, m, d int64) *big.Int {
	y = new(big.Int).Set(y)
	if m <= 2 {
		y.Sub(y, bi(1))
	}
	era, yoe := floorDivMod(y, bi(400))
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	yo := yoe.Int64()
	doe := yo*365 + yo/4 - yo/100 + doy
	r := new(big.Int).Mul(era, bi(146097))
	return r.Add(r, bi(doe-719468))
}

func refCivilFromDays(z *big.Int) (y *big.Int, m, d int64) {
	z = new(big.Int).Add(z, bi(719468))
	era, doeB := floorDivMod(z, bi(146097))
	doe := doeB.Int64()
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if mp >= 10 {
		m = mp - 9
	}
	y = new(big.Int).Mul(era, bi(400))
	y.Add(y, bi(yoe))
	if m <= 2 {
		y.Add(y, bi(1))
	}
	return y, m, d
}

// refInstant returns the attoseconds since the epoch of x units of a
// datetime unit.
func refInstant(u dtype.Unit, x *big.Int) *big.Int {
	day := attos(dtype.Day)
	switch u {
	case dtype.Year:
		return new(big.Int).Mul(refDaysFromCivil(new(big.Int).Add(x, bi(1970)), 1, 1), day)
	case dtype.Month:
		q, r := floorDivMod(x, bi(12))
		return new(big.Int).Mul(refDaysFromCivil(q.Add(q, bi(1970)), r.Int64()+1, 1), day)
	}
	return new(big.Int).Mul(x, attos(u))
}

// refClamp is the clamp policy's result for v (not NaT): the exact result
// saturated to [MinInt64+1, MaxInt64], whether it overflowed, and whether
// a non-zero remainder is dropped (counted only when it did not overflow).
func refClamp(from, to dtype.DataType, v int64) (want int64, over, lossy bool) {
	ref, l := refExact(from, to, v)
	switch {
	case ref.Cmp(bigMin) <= 0:
		return math.MinInt64 + 1, true, false
	case ref.Cmp(bigMax) > 0:
		return math.MaxInt64, true, false
	}
	return ref.Int64(), false, l
}

// refExact returns the exact result of converting v (not NaT) and whether a
// non-zero remainder is dropped.
func refExact(from, to dtype.DataType, v int64) (*big.Int, bool) {
	if from.Unit == dtype.Generic || from == to {
		return bi(v), false
	}
	x := new(big.Int).Mul(bi(v), bi(from.Scale))
	if from.Kind == dtype.Timedelta || !(from.Unit.IsCalendar() || to.Unit.IsCalendar()) {
		num := new(big.Int).Mul(x, attos(from.Unit))
		den := new(big.Int).Mul(attos(to.Unit), bi(to.Scale))
		q, r := floorDivMod(num, den)
		return q, r.Sign() != 0
	}
	inst := refInstant(from.Unit, x)
	if to.Unit.IsCalendar() {
		days, _ := floorDivMod(inst, attos(dtype.Day))
		y, m, _ := refCivilFromDays(days)
		r := new(big.Int).Sub(y, bi(1970))
		if to.Unit == dtype.Month {
			r.Mul(r, bi(12)).Add(r, bi(m-1))
		}
		q, _ := floorDivMod(r, bi(to.Scale))
		back := refInstant(to.Unit, new(big.Int).Mul(q, bi(to.Scale)))
		return q, back.Cmp(inst) != 0
	}
	q, r := floorDivMod(inst, new(big.Int).Mul(attos(to.Unit), bi(to.Scale)))
	return q, r.Sign() != 0
}
