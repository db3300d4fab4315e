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
