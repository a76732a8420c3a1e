package transcript

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"
)

// Small accessors over fastjson values that tolerate any shape: a missing
// key, a null, or a value of another type all read as the zero value.

// str returns the string at the path of keys, copied.
func str(v *fastjson.Value, keys ...string) string {
	if v == nil {
		return ""
	}
	return string(v.GetStringBytes(keys...))
}

// is reports whether the string at keys equals want, without allocating.
func is(v *fastjson.Value, want string, keys ...string) bool {
	if v == nil {
		return false
	}
	return string(v.GetStringBytes(keys...)) == want
}

// num returns the number at keys, also when it is written as a string.
func num(v *fastjson.Value, keys ...string) float64 {
	if v == nil {
		return 0
	}
	x := v.Get(keys...)
	if x == nil {
		return 0
	}
	switch x.Type() {
	case fastjson.TypeNumber:
		return x.GetFloat64()
	case fastjson.TypeString:
		f, _ := strconv.ParseFloat(strings.TrimSpace(string(x.GetStringBytes())), 64)
		return f
	}
	return 0
}

// integer returns the integer at keys.
func integer(v *fastjson.Value, keys ...string) int64 {
	if v == nil {
		return 0
	}
	x := v.Get(keys...)
	if x == nil {
		return 0
	}
	if x.Type() == fastjson.TypeNumber {
		if n, err := x.Int64(); err == nil {
			return n
		}
		return int64(x.GetFloat64())
	}
	return int64(num(v, keys...))
}

// optInt returns the integer at keys, or nil when there is no number.
func optInt(v *fastjson.Value, keys ...string) *int {
	if v == nil {
		return nil
	}
	x := v.Get(keys...)
	if x == nil {
		return nil
	}
	var n int
	switch x.Type() {
	case fastjson.TypeNumber:
		n = int(x.GetFloat64())
	case fastjson.TypeString:
		i, err := strconv.Atoi(strings.TrimSpace(string(x.GetStringBytes())))
		if err != nil {
			return nil
		}
		n = i
	default:
		return nil
	}
	return &n
}

// boolean returns the boolean at keys; "true" strings count too.
func boolean(v *fastjson.Value, keys ...string) bool {
	if v == nil {
		return false
	}
	x := v.Get(keys...)
	if x == nil {
		return false
	}
	switch x.Type() {
	case fastjson.TypeTrue:
		return true
	case fastjson.TypeString:
		return string(x.GetStringBytes()) == "true"
	}
	return false
}

// has reports whether the key path exists (with any value, null too).
func has(v *fastjson.Value, keys ...string) bool {
	return v != nil && v.Exists(keys...)
}

// raw returns the JSON text of the value at keys, or "" when missing; a
// string value is returned as its contents.
func raw(v *fastjson.Value, keys ...string) string {
	if v == nil {
		return ""
	}
	x := v.Get(keys...)
	if x == nil || x.Type() == fastjson.TypeNull {
		return ""
	}
	if x.Type() == fastjson.TypeString {
		return string(x.GetStringBytes())
	}
	return string(x.MarshalTo(nil))
}

// contentText joins the text of a message content that is a string, an
// array of blocks with "text" (or "content") fields, or a nested mix.
// Images and other binary blocks become a short placeholder.
func contentText(v *fastjson.Value) string {
	if v == nil {
		return ""
	}
	switch v.Type() {
	case fastjson.TypeString:
		return string(v.GetStringBytes())
	case fastjson.TypeArray:
		var sb strings.Builder
		for _, b := range v.GetArray() {
			t := blockText(b)
			if t == "" {
				continue
			}
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(t)
		}
		return sb.String()
	case fastjson.TypeObject:
		return blockText(v)
	}
	return ""
}

func blockText(b *fastjson.Value) string {
	switch b.Type() {
	case fastjson.TypeString:
		return string(b.GetStringBytes())
	case fastjson.TypeObject:
	default:
		return ""
	}
	switch typ := string(b.GetStringBytes("type")); typ {
	case "image", "input_image", "image_url", "document":
		return "[" + typ + "]"
	}
	if t := b.Get("text"); t != nil && t.Type() == fastjson.TypeString {
		return string(t.GetStringBytes())
	}
	if c := b.Get("content"); c != nil {
		return contentText(c)
	}
	return ""
}

// maxDepth bounds how deeply brackets may nest in a JSON value. fastjson's
// parser stops at the same depth (it counts the innermost scalar as a
// level, hence the one less), but its validator and the fallbacks that
// read damaged lines with encoding/json do not share the bound, and a line
// of a few million brackets overflowed the stack in one of them, which no
// recover catches. Real transcripts nest a dozen levels at most.
const maxDepth = fastjson.MaxDepth - 1

// errTooDeep is the error for JSON nested deeper than maxDepth.
var errTooDeep = fmt.Errorf("JSON nested deeper than %d levels", maxDepth)

// tooDeep reports whether the JSON text b nests brackets deeper than
// maxDepth, counting outside strings. It does not validate: it is the
// cheap check done before anything recursive or slow looks at text that
// did not parse.
func tooDeep(b []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > maxDepth {
				return true
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
}
