package envtest

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	missing := errors.New("control-plane binaries not found: run `make controlplane` (missing etcd in /x/bin)")
	for _, tc := range []struct {
		name                 string
		binErr               error
		short, require, skip bool
		want                 Decision
	}{
		{"built", nil, false, false, false, Decision{Run: true}},
		{"built, -short", nil, true, false, false, Decision{Run: true}},
		{"built, skip asked", nil, false, false, true, Decision{Run: true}},
		{"built, required", nil, false, true, false, Decision{Run: true}},
		{"missing", missing, false, false, false, Decision{Exit: 1, Line: "envtest: FAIL test/e2e: integration tests not run: " +
			"control-plane binaries not found: run `make controlplane` (missing etcd in /x/bin); " +
			"or skip them on purpose with SETPOINT_SKIP_INTEGRATION=1 or -short"}},
		{"missing, -short", missing, true, false, false, Decision{Line: "envtest: SKIPPED test/e2e: integration tests not run, " +
			"as asked (-short): control-plane binaries not found: run `make controlplane` (missing etcd in /x/bin)"}},
		{"missing, skip asked", missing, false, false, true, Decision{Line: "envtest: SKIPPED test/e2e: integration tests not run, " +
			"as asked (SETPOINT_SKIP_INTEGRATION=1): control-plane binaries not found: run `make controlplane` (missing etcd in /x/bin)"}},
		{"missing, required", missing, false, true, false, Decision{Exit: 1, Line: "envtest: FAIL test/e2e: " +
			"SETPOINT_REQUIRE_CONTROLPLANE=1 and control-plane binaries not found: run `make controlplane` (missing etcd in /x/bin)"}},
		{"missing, required wins over -short and skip", missing, true, true, true, Decision{Exit: 1, Line: "envtest: FAIL test/e2e: " +
			"SETPOINT_REQUIRE_CONTROLPLANE=1 and control-plane binaries not found: run `make controlplane` (missing etcd in /x/bin)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decide("test/e2e", tc.binErr, tc.short, tc.require, tc.skip); got != tc.want {
				t.Errorf("decide = %+v\nwant     %+v", got, tc.want)
			}
		})
	}
}

// A package on RunMain, without binaries, runs as a test binary does under
// go test: its exit status and its stderr, one envtest line, are what a
// plain `go test ./...` shows.
func TestRunMainWithoutBinaries(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		env       []string
		exit      int
		line      string // the start of the one envtest line
		markNoRun bool   // ends with the testing package's "no tests to run"
	}{
		{"nothing asked", nil, nil, 1, "envtest: FAIL test/envtest: integration tests not run: control-plane binaries not found", false},
		{"skip asked", nil, []string{SkipEnv + "=1"}, 0, "envtest: SKIPPED test/envtest: integration tests not run, as asked (SETPOINT_SKIP_INTEGRATION=1)", true},
		{"-short", []string{"-test.short"}, nil, 0, "envtest: SKIPPED test/envtest: integration tests not run, as asked (-short)", true},
		{"required and skip asked", nil, []string{RequireEnv + "=1", SkipEnv + "=1"}, 1, "envtest: FAIL test/envtest: SETPOINT_REQUIRE_CONTROLPLANE=1 and", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$"}, tc.args...)...)
			cmd.Env = append(withoutGateEnv(os.Environ()), append(tc.env, gateChildEnv+"="+tc.name, BinDirEnv+"="+t.TempDir())...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			exit := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				exit = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if exit != tc.exit {
				t.Errorf("exit status %d, want %d; stderr:\n%s", exit, tc.exit, stderr.String())
			}
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if strings.HasPrefix(l, "envtest: ") {
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 || !strings.HasPrefix(lines[0], tc.line) {
				t.Errorf("envtest lines %q, want one starting %q", lines, tc.line)
			}
			if got := strings.HasSuffix(stderr.String(), "\ntesting: warning: no tests to run\n"); got != tc.markNoRun {
				t.Errorf("stderr ends with go test's \"no tests to run\": %v, want %v; stderr:\n%s", got, tc.markNoRun, stderr.String())
			}
		})
	}
}

// withoutGateEnv drops the variables the cases set, whatever the caller
// (make test sets SETPOINT_REQUIRE_CONTROLPLANE=1) exported.
func withoutGateEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name != RequireEnv && name != SkipEnv && name != BinDirEnv && name != gateChildEnv {
			out = append(out, kv)
		}
	}
	return out
}
