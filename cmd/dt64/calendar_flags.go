package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/zarr-dt64/dt64/cf"
)

// calendarFlags are --convert-calendar and --calendar-missing, the one
// choice (cf.CalendarOptions) every command that decodes CF time takes.
type calendarFlags struct{ convert, missing string }

const calendarHelp = `Calendars: standard, gregorian, julian and proleptic_gregorian decode to
their true instants. Model calendars (noleap/365_day, all_leap/366_day,
360_day) have none: they are refused unless --convert-calendar says how to
convert their dates, as xarray's convert_calendar does. date keeps each
date's year, month, day and time of day (for julian and standard dates too,
instead of their true instants); year, for 360_day, keeps each date's
position in its year (day n becomes day round(n × 365/360), or 366). A date
the proleptic Gregorian calendar lacks (Feb 29 of a common year, Feb 30)
stops the command naming it, or with --calendar-missing nat is stored as
NaT and counted. See docs/cf-time.md.`

func (c *calendarFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&c.convert, "convert-calendar", "none", "convert a CF source's dates to datetime64's calendar: none (model calendars refused; julian and standard as true instants), date (same year, month, day and time of day), or year (360_day: same position in the year)")
	fl.StringVar(&c.missing, "calendar-missing", "error", "with --convert-calendar, a date the proleptic Gregorian calendar lacks (Feb 29 of a common year, Feb 30): error or nat")
}

func (c *calendarFlags) options() (cf.CalendarOptions, error) {
	conv, err := cf.ParseCalendarConversion(c.convert)
	if err != nil {
		return cf.CalendarOptions{}, usageError{fmt.Errorf("--convert-calendar: %w", err)}
	}
	missing, err := cf.ParseMissingDate(c.missing)
	if err != nil {
		return cf.CalendarOptions{}, usageError{fmt.Errorf("--calendar-missing: %w", err)}
	}
	return cf.CalendarOptions{Convert: conv, Missing: missing}, nil
}

// noDateText is a summary's count of the dates without a Gregorian one,
// "" when there were none.
func noDateText[T ~int | ~int64](n T) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of them dates the proleptic Gregorian calendar lacks)", n)
}
