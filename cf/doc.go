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
// converting. Calendars without real elapsed time ("noleap", "365_day",
// "all_leap", "366_day", "360_day", "none") have no exact mapping and are
// refused. A missing calendar attribute means "standard", as in CF.
//
// Every error is an *AttributeError naming the attribute, its text and
// what is wrong.
package cf
