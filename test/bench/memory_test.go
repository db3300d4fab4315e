package main

import "testing"

func TestParseProcStatusKiB(t *testing.T) {
	got := parseProcStatusKiB("Name:\tsetpoint\nVmRSS:\t   85812 kB\nRssAnon:\t   53528 kB\nRssFile:\t   32284 kB\nThreads:\t12\n")
	want := map[string]float64{"VmRSS": 85812, "RssAnon": 53528, "RssFile": 32284}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}
