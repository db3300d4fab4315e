package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// The pages that spell out a PostgresDatabase's condition chain name the
// pipeline's conditions in its order, then Ready: pgv1.DatabaseConditions
// is the one list, which the controller checks its steps against. A new
// step fails here until the pages say where it stands.
func TestPagesNameTheDatabaseChain(t *testing.T) {
	want := append(slices.Clone(pgv1.DatabaseConditions), pgv1.ConditionReady)
	for _, c := range []struct{ page, opening string }{
		{"docs/concepts/status-and-conditions.md", "The conditions follow the pipeline ("},
		{"docs/guides/kubectl-plugin.md", "walks the condition chain ("},
	} {
		data, err := os.ReadFile(filepath.Join(root, c.page))
		if err != nil {
			t.Fatal(err)
		}
		if got := chainAfter(string(data), c.opening); !slices.Equal(got, want) {
			t.Errorf("%s lists the database's conditions %v, want %v", c.page, got, want)
		}
	}
}

var chainSpan = regexp.MustCompile("`([A-Za-z]+)`")

// chainAfter is the code spans of the parenthesis opening opens, in order.
func chainAfter(page, opening string) []string {
	i := strings.Index(page, opening)
	if i < 0 {
		return nil
	}
	rest := page[i+len(opening):]
	if j := strings.Index(rest, ")"); j >= 0 {
		rest = rest[:j]
	}
	var out []string
	for _, m := range chainSpan.FindAllStringSubmatch(rest, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestChainAfterReadsTheParenthesis(t *testing.T) {
	page := "x walks the condition chain (`A`, `B`,\n`C`, then `Ready`) to `D`"
	if got := chainAfter(page, "walks the condition chain ("); !slices.Equal(got, []string{"A", "B", "C", "Ready"}) {
		t.Errorf("chainAfter = %v", got)
	}
	if got := chainAfter(page, "no such opening ("); got != nil {
		t.Errorf("a page without the opening: %v", got)
	}
}
