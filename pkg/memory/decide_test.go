package memory

import "testing"

const mib = 1 << 20

func TestDecider(t *testing.T) {
	th := thresholds{quiet: 4 * mib, busy: 64 * mib, minKept: 4 * mib}
	for _, tc := range []struct {
		name    string
		samples []sample // cumulative allocs, kept
		want    []bool
	}{
		{"the first look only remembers",
			[]sample{{0, 10 * mib}}, []bool{false}},
		{"a burst then a quiet period returns once",
			[]sample{{0, 0}, {200 * mib, 8 * mib}, {201 * mib, 8 * mib}, {201 * mib, 8 * mib}},
			[]bool{false, false, true, false}},
		{"still busy: no return",
			[]sample{{0, 0}, {200 * mib, 8 * mib}, {300 * mib, 8 * mib}},
			[]bool{false, false, false}},
		{"quiet without a burst before: no return",
			[]sample{{0, 0}, {10 * mib, 8 * mib}, {11 * mib, 8 * mib}},
			[]bool{false, false, false}},
		{"little kept: no return, the burst still counts later",
			[]sample{{0, 0}, {200 * mib, 8 * mib}, {201 * mib, 1 * mib}, {202 * mib, 6 * mib}},
			[]bool{false, false, false, true}},
		{"slow steady allocation adds up to a burst",
			[]sample{{0, 0}, {mib, 8 * mib}, {64 * mib, 8 * mib}, {65 * mib, 8 * mib}},
			[]bool{false, false, false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decider{t: th}
			for i, s := range tc.samples {
				if got := d.next(s); got != tc.want[i] {
					t.Fatalf("look %d (%+v): return = %v, want %v", i, s, got, tc.want[i])
				}
			}
		})
	}
}
