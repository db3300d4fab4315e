package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Repeated runs (-runs N, make bench BENCH_RUNS=N): the bench runs itself
// N times, each a separate process with its own control plane and its own
// shared Postgres server, then prints the median of the runs' figures with
// their spread. Separate processes and not -reps: at 100 × 10 a
// repetition leaves about 17 GB of databases on the shared server, and a
// fresh machine state per run is what a median of runs should sample.

// runsChildArgs is what a child is run with: the parent's arguments, then
// one run and its own JSON (a later flag wins in package flag).
func runsChildArgs(args []string, out string) []string {
	return append(append([]string(nil), args...), "-runs=1", "-out="+out)
}

// runPath is where run k of n writes its figures: next to -out, or in dir
// when -out is empty.
func runPath(out, dir string, k int) string {
	if out == "" {
		return filepath.Join(dir, fmt.Sprintf("bench-run%d.json", k))
	}
	ext := filepath.Ext(out)
	return fmt.Sprintf("%s-run%d%s", strings.TrimSuffix(out, ext), k, ext)
}

// runMany runs the bench n times as child processes and prints the
// medians of their figures.
func runMany(ctx context.Context, f flags) error {
	if f.curve {
		return fmt.Errorf("-runs applies to the full bench, not to -curve")
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("-runs: %w", err)
	}
	dir, err := os.MkdirTemp("", "setpoint-bench-runs-")
	if err != nil {
		return fmt.Errorf("-runs: %w", err)
	}
	defer os.RemoveAll(dir)
	began := time.Now()
	var runs []*report
	var failed error
	for k := 1; k <= f.runs && failed == nil; k++ {
		r, err := runOnce(ctx, self, runPath(f.out, dir, k), k, f.runs)
		if r != nil {
			runs = append(runs, r)
		}
		if err != nil {
			failed = err
			break
		}
	}
	if len(runs) == 0 {
		return failed
	}
	// A failed or interrupted run still leaves the medians of those done.
	rep := medianOfRuns(runs, float64(f.clusters*(1+f.perDB)))
	rep.Meta.TotalSeconds = time.Since(began).Seconds()
	fmt.Fprintf(os.Stdout, "\n==== medians of %d separate runs of %d asked (min–max: the spread over runs) ====\n", len(runs), f.runs)
	rep.print(os.Stdout)
	if f.out != "" {
		if err := rep.writeJSON(f.out); err != nil {
			return errors.Join(failed, fmt.Errorf("-runs: %w", err))
		}
		logf("wrote %s", f.out)
	}
	return failed
}

// runOnce runs the bench once as a child process writing its figures to
// path, and reads them. A run that failed or was interrupted after writing
// them (in its teardown) still returns them, with its error.
func runOnce(ctx context.Context, self, path string, k, n int) (*report, error) {
	logf("run %d of %d (figures in %s)", k, n, path)
	cmd := exec.CommandContext(ctx, self, runsChildArgs(os.Args[1:], path)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	// An interrupted parent lets the child tear its control plane down.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = time.Minute
	if err := cmd.Run(); err != nil {
		r, _ := readReport(path) // absent unless the run got that far
		return r, fmt.Errorf("run %d of %d: %w", k, n, err)
	}
	r, err := readReport(path)
	if err != nil {
		return nil, fmt.Errorf("run %d of %d: %w", k, n, err)
	}
	return r, nil
}

func readReport(path string) (*report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// medianOfRuns combines runs into one report: each figure is the median of
// the runs' figures (each run's own median over its -reps), with the
// runs' min and max; the lists are kept, each line naming its run.
func medianOfRuns(runs []*report, objects float64) *report {
	out := &report{Meta: runs[0].Meta, APIErrors: map[string]float64{}, objects: objects}
	out.Meta.Reps = len(runs)
	out.Meta.Settings += fmt.Sprintf("; medians of %d separate runs, commits %s", len(runs), commitsOf(runs))
	figs := make([]map[string]float64, len(runs))
	for i, r := range runs {
		figs[i] = map[string]float64{}
		for k, st := range r.Figures {
			figs[i][k] = st.Median
		}
	}
	out.Figures = summarizeAll(figs)
	out.API = combineAPI(runs, func(r *report) []apiRow { return r.API }, objects)
	out.IdleAPI = combineAPI(runs, func(r *report) []apiRow { return r.IdleAPI }, objects)
	for i, r := range runs {
		p := fmt.Sprintf("run %d: ", i+1)
		for k, v := range r.APIErrors {
			out.APIErrors[k] += v
		}
		out.ErrorLines += r.ErrorLines
		out.ErrorLog = append(out.ErrorLog, prefixed(p, r.ErrorLog)...)
		out.Light = append(out.Light, prefixed(p, r.Light)...)
		out.Stream = append(out.Stream, prefixed(p, r.Stream)...)
		out.Converge = append(out.Converge, prefixed(p, r.Converge)...)
		out.Sizes = append(out.Sizes, prefixed(p, r.Sizes)...)
	}
	return out
}

// commitsOf names the runs' commits once each.
func commitsOf(runs []*report) string {
	var cs []string
	for _, r := range runs {
		if len(cs) == 0 || cs[len(cs)-1] != r.Meta.Commit {
			cs = append(cs, r.Meta.Commit)
		}
	}
	return strings.Join(cs, ", ")
}

// combineAPI turns the runs' request tables into one of medians over runs
// (a row missing from a run counts 0 there).
func combineAPI(runs []*report, rows func(*report) []apiRow, objects float64) []apiRow {
	byRun := make([]map[string]float64, len(runs))
	lbByRun := make([]map[string]float64, len(runs))
	for i, r := range runs {
		byRun[i], lbByRun[i] = map[string]float64{}, map[string]float64{}
		for _, a := range rows(r) {
			byRun[i][a.Verb+" "+a.Resource] = a.Operator.Median
			lbByRun[i][a.Verb+" "+a.Resource] = a.Lower.Median
		}
	}
	reps := make([]*repResult, len(runs))
	for i := range runs {
		reps[i] = &repResult{opAPI: byRun[i], lbAPI: lbByRun[i]}
	}
	return apiTable(reps, func(x *repResult) map[string]float64 { return x.opAPI }, func(x *repResult) map[string]float64 { return x.lbAPI }, objects)
}
