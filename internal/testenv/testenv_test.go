package testenv

import "testing"

func TestSlow(t *testing.T) {
	for _, c := range []struct {
		env  string
		want bool
	}{{"1", !testing.Short()}, {"", false}, {"0", false}, {"yes", false}} {
		t.Setenv(SlowEnv, c.env)
		if got := Slow(); got != c.want {
			t.Errorf("%s=%q: Slow() = %t, want %t", SlowEnv, c.env, got, c.want)
		}
	}
}

func TestSkipUnlessSlow(t *testing.T) {
	t.Setenv(SlowEnv, "")
	skipped := true
	t.Run("inner", func(t *testing.T) {
		SkipUnlessSlow(t, "inner")
		skipped = false
	})
	if !skipped {
		t.Error("SkipUnlessSlow did not skip with the variable unset")
	}
}
