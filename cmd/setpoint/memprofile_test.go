package main

import (
	"runtime"
	"testing"
)

func TestApplyMemProfileRate(t *testing.T) {
	saved := runtime.MemProfileRate
	t.Cleanup(func() { runtime.MemProfileRate = saved })
	for _, tc := range []struct {
		addr string
		want int
	}{
		{addr: "127.0.0.1:8082", want: 4096}, // on: left as it was
		{addr: "0", want: 0},
		{addr: "", want: 0},
	} {
		runtime.MemProfileRate = 4096
		applyMemProfileRate(tc.addr)
		if runtime.MemProfileRate != tc.want {
			t.Errorf("profiling address %q: MemProfileRate %d, want %d", tc.addr, runtime.MemProfileRate, tc.want)
		}
	}
}
