package collector

import "testing"

func TestSynchronousRequiredReadsPostgresForms(t *testing.T) {
	for _, tc := range []struct {
		names string
		want  int
	}{
		{"", 0},
		{"   ", 0},
		{`ANY 1 ("shop-2")`, 1},
		{`ANY 2 ("shop-2","shop-3","shop-4")`, 2},
		{`any 2 (a, b)`, 2},
		{`FIRST 2 (a, b, c)`, 2},
		{`3 (a, b, c)`, 3},
		{`3(a, b, c)`, 3},
		{`shop-2`, 1},
		{`shop-2, shop-3`, 1},
		{`*`, 1},
		// A standby named like the keyword is a bare list of one.
		{`any`, 1},
		{`"first"`, 1},
	} {
		if got := synchronousRequired(tc.names); got != tc.want {
			t.Errorf("synchronousRequired(%q) = %d, want %d", tc.names, got, tc.want)
		}
	}
}
