package controllertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder keeps what a check reports instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, format)
}

// A stage's state touched from another stage's file, a *State field with
// no room and a room nobody uses are each reported; the state's own file
// is not.
func TestCheckStateRoomsReportsEachBreach(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"pass.go":    "package x\n\ntype pass struct {\n\tsecrets secretsState\n\tstray strayState\n}\ntype secretsState struct{ n int }\ntype strayState struct{}\n",
		"step_a.go":  "package x\n\nfunc (p *pass) a() { p.secrets.n++ }\n",
		"step_b.go":  "package x\n\nfunc b(q *pass) { f := func(r *pass) { _ = r.secrets }; f(q) }\n",
		"other.go":   "package x\n\nfunc c(p *pass) {}\n",
		"ok_test.go": "package x\n\nfunc d(p *pass) { _ = p.secrets }\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := &recorder{TB: t}
	CheckStateRooms(r, dir, StateRooms{"secrets": InFiles("step_a.go"), "unused": InFiles("other.go")}, "step")
	got := strings.Join(r.errs, "\n")
	for _, want := range []string{"is the state of the", "with no room", "the check would pass vacuously"} {
		if !strings.Contains(got, want) {
			t.Errorf("no report containing %q in:\n%s", want, got)
		}
	}
	if len(r.errs) != 3 {
		t.Errorf("%d reports, want 3 (step_b's literal, stray, unused):\n%s", len(r.errs), got)
	}
}
