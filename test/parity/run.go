package parity

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// recordFile is the record of real CNPG, next to this file in the source
// tree (the tests run with their package's directory as working
// directory, which is not this one).
func recordFile() string {
	if _, self, _, ok := runtime.Caller(0); ok && filepath.IsAbs(self) {
		return filepath.Join(filepath.Dir(self), "testdata", "real-cnpg.json")
	}
	// Built with -trimpath: the callers are test packages beside this one.
	return filepath.Join("..", "parity", "testdata", "real-cnpg.json")
}

// Run runs every scenario step at site in order (a failed step ends the
// run: the next ones build on it) and holds what it observed to the
// record, or writes the record.
func Run(t *testing.T, site Site) {
	r := &run{site: site, got: map[string]Value{}}
	if site.Mode != WriteRecord {
		r.record = loadRecord(t)
	}
	for _, s := range steps {
		if !t.Run(s.name, func(t *testing.T) { s.run(t, r) }) {
			return
		}
	}
	if site.Mode == WriteRecord {
		writeRecord(t, r.got)
		return
	}
	for _, key := range slices.Sorted(maps.Keys(r.record)) {
		if _, ok := r.got[key]; !ok {
			t.Errorf("the record has %q, which no step observes: write the record again (SETPOINT_PARITY_RECORD=1 on the real tier)", key)
		}
	}
}

// run is one Run's state: the record and what was observed.
type run struct {
	site   Site
	record map[string]Value
	got    map[string]Value
}

// observe reads one observation: until it matches the record, or (writing
// it) until it is the same at three reads a second apart. For the
// stand-in, the listed differences are left out of the match, and each
// must still be there.
func (r *run) observe(t *testing.T, key string, read func(ctx context.Context) (Value, error)) {
	t.Helper()
	var got Value
	var readErr error
	var settled int
	want, recorded := r.record[key]
	if r.site.Mode != WriteRecord && !recorded {
		t.Fatalf("%s: not in the record: write the record again (SETPOINT_PARITY_RECORD=1 on the real tier)", key)
	}
	paths := r.differences(key)
	err := wait.PollUntilContextTimeout(t.Context(), time.Second, r.site.Timeout, true, func(ctx context.Context) (bool, error) {
		v, err := read(ctx)
		if err != nil {
			readErr = err
			return false, nil
		}
		readErr = nil
		if r.site.Mode == WriteRecord {
			if got != nil && Canonical(v) == Canonical(got) {
				settled++
			} else {
				settled = 0
			}
			got = v
			return settled == 2, nil
		}
		got = v
		return Canonical(strip(v, paths)) == Canonical(strip(want, paths)), nil
	})
	r.got[key] = got
	if err != nil {
		if readErr != nil {
			t.Fatalf("%s on %s: %v", key, r.site.Name, readErr)
		}
		t.Fatalf("%s on %s: not as real CNPG within %s\n got: %s\nwant: %s", key, r.site.Name, r.site.Timeout,
			Canonical(strip(got, paths)), Canonical(strip(want, paths)))
	}
	for _, p := range paths {
		_, mine := Without(got, p)
		_, theirs := Without(want, p)
		if Canonical(mine) == Canonical(theirs) {
			t.Errorf("%s: the stand-in no longer differs from real CNPG at %s (%s): remove the entry from differences.go and the docs", key, p, Canonical(mine))
		}
	}
}

// differences are the paths of key left out for the stand-in.
func (r *run) differences(key string) []string {
	if r.site.Mode != StandIn {
		return nil
	}
	var paths []string
	for _, d := range Differences {
		if d.Key == key {
			paths = append(paths, d.Path)
		}
	}
	return paths
}

func strip(v Value, paths []string) Value {
	for _, p := range paths {
		v, _ = Without(v, p)
	}
	return v
}

// waitFor polls cond every half second until it holds, within the site's
// timeout, and fails with what it last saw.
func (r *run) waitFor(t *testing.T, what string, cond func(ctx context.Context) (bool, string, error)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 500*time.Millisecond, r.site.Timeout, true, func(ctx context.Context) (bool, error) {
		ok, seen, err := cond(ctx)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		last = seen
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s on %s: not within %s; last seen: %s", what, r.site.Name, r.site.Timeout, last)
	}
}

func loadRecord(t *testing.T) map[string]Value {
	t.Helper()
	b, err := os.ReadFile(recordFile())
	if err != nil {
		t.Fatalf("the record of real CNPG: %v", err)
	}
	var rec map[string]Value
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("the record of real CNPG: %v", err)
	}
	return rec
}

func writeRecord(t *testing.T, got map[string]Value) {
	t.Helper()
	b, err := encode(got, "  ")
	if err == nil {
		err = os.WriteFile(recordFile(), b, 0o644)
	}
	if err != nil {
		t.Fatalf("write the record: %v", err)
	}
	t.Logf("wrote the record of real CNPG, %d observations, to %s", len(got), recordFile())
}
