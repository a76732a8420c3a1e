package main

import (
	"bytes"
	"testing"
)

func TestWriteJSON(t *testing.T) {
	v := map[string]any{"text": "a < b && c > d", "n": []int{1}}
	for _, tt := range []struct {
		name string
		opts []jsonOption
		want string
	}{
		{"default", nil, `{"n":[1],"text":"a < b && c > d"}` + "\n"},
		{"escaped", []jsonOption{jsonEscapeHTML}, `{"n":[1],"text":"a \u003c b \u0026\u0026 c \u003e d"}` + "\n"},
		{"indented", []jsonOption{jsonIndent}, "{\n  \"n\": [\n    1\n  ],\n  \"text\": \"a < b && c > d\"\n}\n"},
		{"both", []jsonOption{jsonIndent, jsonEscapeHTML}, "{\n  \"n\": [\n    1\n  ],\n  \"text\": \"a \\u003c b \\u0026\\u0026 c \\u003e d\"\n}\n"},
	} {
		var b bytes.Buffer
		if err := writeJSON(&b, v, tt.opts...); err != nil || b.String() != tt.want {
			t.Errorf("%s: %q (%v), want %q", tt.name, b.String(), err, tt.want)
		}
	}
	if err := writeJSON(new(bytes.Buffer), func() {}); err == nil {
		t.Error("a value JSON cannot hold gave no error")
	}
}
