package main

import (
	"math"
	"slices"
	"testing"
)

func TestRunsChildArgsOverrideRunsAndOut(t *testing.T) {
	got := runsChildArgs([]string{"-runs", "3", "-out", "x.json", "-clusters", "10"}, "x-run2.json")
	want := []string{"-runs", "3", "-out", "x.json", "-clusters", "10", "-runs=1", "-out=x-run2.json"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestRunPath(t *testing.T) {
	if got := runPath("bench.json", "/tmp/d", 2); got != "bench-run2.json" {
		t.Errorf("beside -out: got %s", got)
	}
	if got := runPath("", "/tmp/d", 3); got != "/tmp/d/bench-run3.json" {
		t.Errorf("without -out: got %s", got)
	}
}

func TestMedianOfRunsTakesEachRunsMedian(t *testing.T) {
	run := func(v, op float64, commit string) *report {
		return &report{Meta: runMeta{Commit: commit}, Figures: map[string]stat{"stream_ratio_p50": {Median: v}},
			API: []apiRow{{Verb: "create", Resource: "secrets", Operator: stat{Median: op}}}, Stream: []string{"line"}}
	}
	r := medianOfRuns([]*report{run(1.4, 10, "a"), run(1.1, 30, "a"), run(2.0, 20, "b")}, 10)
	s := r.Figures["stream_ratio_p50"]
	if s.Median != 1.4 || s.Min != 1.1 || s.Max != 2.0 {
		t.Errorf("figure: got %+v, want median 1.4 of 1.1–2.0", s)
	}
	if len(r.API) != 1 || r.API[0].Operator.Median != 20 || r.API[0].PerObj != 2 {
		t.Errorf("API table: got %+v", r.API)
	}
	if r.Meta.Reps != 3 || len(r.Stream) != 3 || r.Stream[1] != "run 2: line" {
		t.Errorf("reps %d, stream lines %q", r.Meta.Reps, r.Stream)
	}
	if c := commitsOf([]*report{run(0, 0, "a"), run(0, 0, "a"), run(0, 0, "b")}); c != "a, b" {
		t.Errorf("commits: %s", c)
	}
}

func TestReportJSONLeavesNaNOut(t *testing.T) {
	path := t.TempDir() + "/r.json"
	r := &report{Figures: map[string]stat{"stream_ratio_p50": summarize([]float64{math.NaN()}), "x": summarize([]float64{1})}}
	if err := r.writeJSON(path); err != nil {
		t.Fatal(err)
	}
	got, err := readReport(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Figures["stream_ratio_p50"]; ok || got.Figures["x"].Median != 1 {
		t.Errorf("figures read back: %+v", got.Figures)
	}
}
