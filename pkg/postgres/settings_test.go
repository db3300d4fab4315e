package postgres

import "testing"

func TestSettingMatches(t *testing.T) {
	cases := []struct {
		s    Setting
		want string
		eq   bool
	}{
		{Setting{Setting: "16384", Unit: "kB"}, "16MB", true},
		{Setting{Setting: "16384", Unit: "kB"}, "16384kB", true},
		{Setting{Setting: "16384", Unit: "kB"}, "8MB", false},
		{Setting{Setting: "32768", Unit: "8kB"}, "256MB", true},
		{Setting{Setting: "60", Unit: "s"}, "1min", true},
		{Setting{Setting: "200", Unit: ""}, "200", true},
		{Setting{Setting: "200", Unit: ""}, "201", false},
		{Setting{Setting: "on", Unit: ""}, "true", true},
		{Setting{Setting: "off", Unit: ""}, "on", false},
		{Setting{Setting: "replica", Unit: ""}, "logical", false},
		{Setting{Setting: "ddl", Unit: ""}, "DDL", true},
	}
	for _, c := range cases {
		if got := c.s.Matches(c.want); got != c.eq {
			t.Errorf("%+v.Matches(%q) = %v, want %v", c.s, c.want, got, c.eq)
		}
	}
}

func TestSettingInEffect(t *testing.T) {
	cases := []struct {
		name string
		s    Setting
		want string
		eq   bool
	}{
		{"normalised list", Setting{Setting: "ISO, MDY", Normalized: ptr("ISO, MDY")}, "ISO", true},
		{"normalised differs", Setting{Setting: "ISO, MDY", Normalized: ptr("ISO, DMY")}, "ISO, DMY", false},
		{"normalised empty value", Setting{Setting: "", Normalized: ptr("")}, "", true},
		{"refused value", Setting{Setting: "4096", Unit: "kB", Invalid: "invalid value"}, "lots", false},
		{"server-only parameter by units", Setting{Setting: "32768", Unit: "8kB", Context: "postmaster"}, "256MB", true},
		{"auto-tuned value never matches", Setting{Setting: "512", Unit: "8kB", Context: "postmaster"}, "-1", false},
	}
	for _, c := range cases {
		if got := c.s.InEffect(c.want); got != c.eq {
			t.Errorf("%s: InEffect(%q) = %v, want %v", c.name, c.want, got, c.eq)
		}
	}
}

func ptr(s string) *string { return &s }
