package kernels

// Stats describes one Run.
type Stats struct {
	Elements   int // elements converted
	NaT        int // NaT elements in the output: source NaT plus overflows under dtype.OverflowNaT
	Valid      int // non-NaT elements in the output (Elements - NaT)
	Overflowed int // elements whose exact result overflowed (dtype.OverflowNaT, dtype.OverflowClamp)
	Lossy      int // elements whose result was floored (a non-zero remainder dropped)
	NoDate     int // CF dates the proleptic Gregorian calendar lacks, stored as NaT (cf.MissingNaT; counted in NaT too)
	// Min and Max are the extremes of the non-NaT output values; only
	// computed with Options.Stats and only meaningful when Valid > 0.
	Min, Max int64
}

// Add accumulates o into s, e.g. the statistics of several chunks.
func (s *Stats) Add(o Stats) {
	if o.Valid > 0 {
		if s.Valid == 0 {
			s.Min, s.Max = o.Min, o.Max
		} else {
			s.Min, s.Max = min(s.Min, o.Min), max(s.Max, o.Max)
		}
	}
	s.Elements += o.Elements
	s.NaT += o.NaT
	s.Valid += o.Valid
	s.Overflowed += o.Overflowed
	s.Lossy += o.Lossy
	s.NoDate += o.NoDate
}
