// Package cf reads CF time encodings, the way xarray (and netCDF-born data
// generally) stores timestamps: numbers with a units attribute such as
// "hours since 1900-01-01 00:00:00" and a calendar attribute.
//
// ParseUnits parses the units attribute: the unit (weeks, days, hours,
// minutes, seconds, milliseconds, microseconds or nanoseconds, under any
// of their CF, UDUNITS and cftime spellings) and the reference date,
// resolved in the calendar to an exact proleptic Gregorian instant (the
// calendar NumPy's datetime64 counts in). ParseCalendar parses the
// calendar attribute.
//
// A count of units is elapsed time, so the calendars with real elapsed
// time, "standard" (also "gregorian": Julian before 1582-10-15), "julian"
// and "proleptic_gregorian", map exactly: only the reference date needs
// converting. The model calendars ("noleap"/"365_day", "all_leap"/
// "366_day", "360_day") have no instants in datetime64's calendar: a
// Decoder refuses them (ErrModelCalendar) unless CalendarOptions convert
// their dates, by date or, for 360_day, by position in the year, as
// xarray's convert_calendar does; julian and standard dates convert by
// date on request too (Decoder.ConvertCalendar is the element-by-element
// reference). "none" is refused. A missing calendar attribute means
// "standard", as in CF.
//
// ParseAttributes reads a variable's whole CF time description (Time:
// units, calendar, scale_factor and add_offset, _FillValue and
// missing_value, the stored numeric type) from its attributes as JSON.
// NewDecoder plans decoding its numbers to a datetime64 type and Decoder
// decodes them exactly, element by element: value = reference +
// (v × scale + offset) × unit, floored to the destination unit. A float
// stands for the instants whose nearest float it is and decodes to the
// coarsest of them (FloatShortest: whole days, hours, minutes, seconds,
// then decimal subseconds), rounded to the destination unit; FloatExact
// takes its exact binary value, floored. NaN and missing values become NaT,
// overflow follows a dtype.OverflowPolicy, and NaT, lossy and overflowed
// elements are counted. It is the reference fast kernels are tested
// against: 128-bit integer arithmetic when the plan's constants fit,
// math/big otherwise.
//
// A units attribute that is exactly one of xarray's duration words
// ("days", "hours", "minutes", "seconds", "milliseconds", "microseconds",
// "nanoseconds"; ParseDuration) makes a CF duration: a Time with
// Units.Duration set and no reference, decoded by the same rules to
// timedelta64. Instants and durations never mix.
//
// Every attribute error is an *AttributeError naming the attribute, its
// text and what is wrong.
package cf
