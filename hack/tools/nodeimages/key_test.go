package nodeimages

import "testing"

func TestKeyStable(t *testing.T) {
	a := inputs{"go.sum": "abc", "debian": "postgresql-15=15.18-0+deb12u1", "builder": "1"}
	b := inputs{"builder": "1", "debian": "postgresql-15=15.18-0+deb12u1", "go.sum": "abc"}
	if a.key() != b.key() {
		t.Errorf("same inputs, keys %s and %s", a.key(), b.key())
	}
	if len(a.key()) != 16 {
		t.Errorf("key %q, want 16 hex digits", a.key())
	}
	if v := builderVersion(); v == "" || v != builderVersion() {
		t.Errorf("builder version %q is not stable", v)
	}
}

func TestKeyChanges(t *testing.T) {
	base := inputs{"go.sum": "abc", "debian": "postgresql-15=15.18-0+deb12u1"}
	for name, changed := range map[string]inputs{
		"a value":           {"go.sum": "abd", "debian": "postgresql-15=15.18-0+deb12u1"},
		"a package version": {"go.sum": "abc", "debian": "postgresql-15=15.19-0+deb12u1"},
		"an input added":    {"go.sum": "abc", "debian": "postgresql-15=15.18-0+deb12u1", "builder": "x"},
		"an input removed":  {"go.sum": "abc"},
		"a name":            {"go.mod": "abc", "debian": "postgresql-15=15.18-0+deb12u1"},
		// Without lengths in the hash, "ab"+"c" and "a"+"bc" would collide.
		"the name/value boundary": {"go.suma": "bc", "debian": "postgresql-15=15.18-0+deb12u1"},
	} {
		if changed.key() == base.key() {
			t.Errorf("%s changed, the key did not (%s)", name, base.key())
		}
	}
}
