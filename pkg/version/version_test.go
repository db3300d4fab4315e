package version

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	stamped := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/setpoint-dev/setpoint", Version: "v0.1.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	devel := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}
	cases := []struct {
		name              string
		ldVersion, commit string
		bi                *debug.BuildInfo
		want              Info
	}{
		{"ldflags win", "v0.2.0", "def456", stamped, Info{"v0.2.0", "def456", "go1.26.8"}},
		{"build info fallback", "", "", stamped, Info{"v0.1.0", "abc123-dirty", "go1.26.8"}},
		{"nothing known", "", "", devel, Info{"(devel)", "unknown", "go1.26.8"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := resolve(c.ldVersion, c.commit, c.bi); got != c.want {
				t.Errorf("resolve = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestString(t *testing.T) {
	got := Info{"v0.2.0", "def456", "go1.26.8"}.String()
	if want := "setpoint v0.2.0 (commit def456, go1.26.8)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}
