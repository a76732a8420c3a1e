package transcript

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"
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

// timeOf reads the timestamp string at keys, like parseTime, without
// allocating for the common RFC 3339 UTC form.
func timeOf(v *fastjson.Value, keys ...string) time.Time {
	if v == nil {
		return time.Time{}
	}
	return parseTimeBytes(v.GetStringBytes(keys...))
}

// parseTimeBytes is parseTime with a fast path for
// "2006-01-02T15:04:05[.fff…]Z", which Claude Code, Codex and Gemini write
// on every line.
func parseTimeBytes(b []byte) time.Time {
	if t, ok := fastUTC(b); ok {
		return t
	}
	if len(b) == 0 {
		return time.Time{}
	}
	return parseTime(string(b))
}

func fastUTC(b []byte) (time.Time, bool) {
	n := len(b)
	if n < 20 || b[n-1] != 'Z' || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, false
	}
	num := func(i, j int) (int, bool) {
		v := 0
		for _, c := range b[i:j] {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 7)
	day, ok3 := num(8, 10)
	hour, ok4 := num(11, 13)
	minute, ok5 := num(14, 16)
	sec, ok6 := num(17, 19)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 60 {
		return time.Time{}, false
	}
	nsec := 0
	if n > 20 {
		if b[19] != '.' || n-21 > 9 || n-21 < 1 {
			return time.Time{}, false
		}
		frac, ok := num(20, n-1)
		if !ok {
			return time.Time{}, false
		}
		for i := n - 21; i < 9; i++ {
			frac *= 10
		}
		nsec = frac
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	if t.Day() != day { // 31 February and the like
		return time.Time{}, false
	}
	return t, true
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
	// Float seconds carry noise below the microsecond; no agent writes
	// finer times than that.
	return time.UnixMicro(int64(math.Round(f * 1e6)))
}
