package transcript

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// naiveLayouts are timestamp layouts without a zone; they are read in the
// local time zone, as the agents that write them (Hermes, OpenHands, Aider)
// do.
var naiveLayouts = []string{
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
}

// parseTime reads the timestamps transcripts hold: RFC 3339 with or
// without fractional seconds, naive local ISO times, and epoch numbers in
// seconds or milliseconds written as strings. It returns the zero time for
// anything else.
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t
	}
	if c := s[0]; c >= '0' && c <= '9' && !strings.ContainsAny(s, "-:") {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return epoch(f)
		}
	}
	// "2025-01-02 15:04:05+00:00" and "…Z" with a space separator.
	if len(s) > 10 && s[10] == ' ' {
		if t, err := time.Parse(time.RFC3339Nano, s[:10]+"T"+s[11:]); err == nil {
			return t
		}
	}
	for _, layout := range naiveLayouts {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t
		}
	}
	return time.Time{}
}

// epoch reads a Unix time in seconds or milliseconds; values too large
// to be seconds in this era are milliseconds.
func epoch(f float64) time.Time {
	if f <= 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return time.Time{}
	}
	if f > 1e11 { // milliseconds (1e11 seconds is the year 5138)
		if f > 1e14 { // microseconds
			f /= 1e3
		}
		ms := int64(f)
		return time.UnixMilli(ms)
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9))
}
