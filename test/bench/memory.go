package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// memoryFigures records where the operator's resident memory goes at one
// moment (prefix names it): the RSS split into anonymous pages (the Go
// heap, stacks and runtime metadata: what only the process can give back)
// and file pages (the binary's code and read-only data, clean pages the
// kernel drops under memory pressure), and the Go runtime's view of its
// heap. pid is the operator's process; the split is skipped when its
// /proc status cannot be read.
func memoryFigures(fig map[string]float64, prefix string, s scrape, pid int) {
	if st, err := procStatusKiB(pid); err == nil {
		fig[prefix+"rss_anon_mb"] = st["RssAnon"] / 1024
		fig[prefix+"rss_file_mb"] = st["RssFile"] / 1024
	}
	const mib = 1 << 20
	fig[prefix+"heap_inuse_mb"] = s.sum("go_memstats_heap_inuse_bytes") / mib
	fig[prefix+"heap_objects_mb"] = s.sum("go_memstats_heap_alloc_bytes") / mib
	// Freed heap pages the runtime keeps instead of returning them to the
	// OS: they count in the RSS.
	fig[prefix+"heap_idle_kept_mb"] = (s.sum("go_memstats_heap_idle_bytes") - s.sum("go_memstats_heap_released_bytes")) / mib
	fig[prefix+"heap_goal_mb"] = s.sum("go_memstats_next_gc_bytes") / mib
	// Memory the runtime holds besides the heap: stacks, GC metadata,
	// spans, profiling buckets.
	fig[prefix+"runtime_other_mb"] = (s.sum("go_memstats_sys_bytes") - s.sum("go_memstats_heap_sys_bytes")) / mib
	fig[prefix+"stack_inuse_mb"] = s.sum("go_memstats_stack_inuse_bytes") / mib
	fig[prefix+"gc_metadata_mb"] = s.sum("go_memstats_gc_sys_bytes") / mib
	fig[prefix+"spans_mb"] = (s.sum("go_memstats_mspan_inuse_bytes") + s.sum("go_memstats_mcache_inuse_bytes")) / mib
	fig[prefix+"runtime_misc_mb"] = (s.sum("go_memstats_other_sys_bytes") + s.sum("go_memstats_buck_hash_sys_bytes")) / mib
	fig[prefix+"goroutines"] = s.sum("go_goroutines")
	// The bar "anonymous memory ≤ 1.5× the Go heap" read two ways: the
	// heap as the spans the runtime holds for objects (what the heap
	// occupies, free slots included), and as the objects alone.
	if anon, ok := fig[prefix+"rss_anon_mb"]; ok {
		if v := fig[prefix+"heap_inuse_mb"]; v > 0 {
			fig[prefix+"anon_over_heap_spans"] = anon / v
		}
		if v := fig[prefix+"heap_objects_mb"]; v > 0 {
			fig[prefix+"anon_over_heap_objects"] = anon / v
		}
	}
}

// procStatusKiB reads the kB fields of /proc/PID/status.
func procStatusKiB(pid int) (map[string]float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	return parseProcStatusKiB(string(b)), nil
}

// parseProcStatusKiB keeps the lines "Name:   123 kB".
func parseProcStatusKiB(s string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(s, "\n") {
		name, rest, ok := strings.Cut(line, ":")
		f := strings.Fields(rest)
		if !ok || len(f) != 2 || f[1] != "kB" {
			continue
		}
		if v, err := strconv.ParseFloat(f[0], 64); err == nil {
			out[name] = v
		}
	}
	return out
}
