package doccheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// root is the repository, seen from this package's directory.
const root = "../.."

// The checks on the repository itself.

func TestLinksResolve(t *testing.T) {
	pages, err := MarkdownFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pages, "README.md") || !slices.Contains(pages, "docs/getting-started.md") {
		t.Fatalf("tracked Markdown files %v miss README.md or docs/getting-started.md", pages)
	}
	for _, p := range CheckLinks(root, pages) {
		t.Error(p)
	}
}

func TestLayoutListsEveryPackage(t *testing.T) {
	dirs, err := PackageDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs/development/layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range CheckLayout(string(page), dirs) {
		t.Error(p)
	}
}

func TestGettingStartedCommandsAreMarked(t *testing.T) {
	const page = "docs/getting-started.md"
	md, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "```sh") {
		t.Fatalf("%s has no sh block: the check would prove nothing", page)
	}
	for _, p := range CheckShBlocks(root, page, string(md)) {
		t.Error(p)
	}
}

// The checker's own tests: each plants a defect and wants it reported.

// tree writes files (slash paths to contents) under a new directory.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// wantProblems fails unless problems has exactly one entry per want, each
// containing its want.
func wantProblems(t *testing.T, problems []string, want ...string) {
	t.Helper()
	if len(problems) != len(want) {
		t.Fatalf("got %d problem(s) %q, want %d: %q", len(problems), problems, len(want), want)
	}
	for i, w := range want {
		if !strings.Contains(problems[i], w) {
			t.Errorf("problem %d = %q, want it to mention %q", i, problems[i], w)
		}
	}
}

func TestCheckLinksReportsBrokenLinks(t *testing.T) {
	dir := tree(t, map[string]string{
		"README.md": "# Top\n\n" +
			"[ok](docs/a.md) [ok anchor](docs/a.md#second-part) [ok dir](docs/) [ok self](#top)\n" +
			"[external](https://example.com/missing.md) [mail](mailto:x@example.com)\n" +
			"`[in code](missing-in-code.md)`\n" +
			"```\n[in a block](missing-in-block.md)\n```\n" +
			"[missing file](docs/missing.md)\n" +
			"[missing anchor](docs/a.md#no-such-part)\n" +
			"[missing self anchor](#nowhere)\n",
		"docs/a.md": "# A\n\n## Second part\n\n[up](../README.md#top) [out](../../outside.md)\n",
	})
	wantProblems(t, CheckLinks(dir, []string{"README.md", "docs/a.md"}),
		`README.md:9: link "docs/missing.md": no such file docs/missing.md`,
		`README.md:10: link "docs/a.md#no-such-part": no heading with anchor #no-such-part in docs/a.md`,
		`README.md:11: link "#nowhere": no heading with anchor #nowhere in README.md`,
		`docs/a.md:5: link "../../outside.md": leaves the repository`,
	)
}

func TestSlugFollowsGitHub(t *testing.T) {
	for heading, want := range map[string]string{
		"The two commands":            "the-two-commands",
		"Benchmarks: `make bench`":    "benchmarks-make-bench",
		"Postgres's side of a sample": "postgress-side-of-a-sample",
		"Upgrading from a setpoint that kept roles in `managed.roles`": "upgrading-from-a-setpoint-that-kept-roles-in-managedroles",
		"Reading `/metrics`":                     "reading-metrics",
		"Status writes deferred, 20 × 10":        "status-writes-deferred-20--10",
		"[Linked](x.md) heading_with_underscore": "linked-heading_with_underscore",
	} {
		if got := Slug(heading); got != want {
			t.Errorf("Slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestAnchorsNumberRepeatedHeadings(t *testing.T) {
	a := Anchors("# Page\n## Status\n```\n## Not a heading\n```\n### Status\n## Status\n<a id=\"custom\"></a>\n")
	for _, want := range []string{"page", "status", "status-1", "status-2", "custom"} {
		if !a[want] {
			t.Errorf("anchors %v miss %q", a, want)
		}
	}
	if a["not-a-heading"] || a["status-3"] {
		t.Errorf("anchors %v hold a heading inside a code block or one too many", a)
	}
}

func TestCheckLayoutReportsAMissingPackage(t *testing.T) {
	dir := tree(t, map[string]string{
		"cmd/tool/main.go":          "package main\n",
		"pkg/alpha/a.go":            "package alpha\n",
		"pkg/beta/b.go":             "package beta\n",
		"test/gamma/g_test.go":      "package gamma\n",
		"hack/tools/cmd/delta/d.go": "package main\n",
	})
	dirs, err := PackageDirs(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"charts", "cmd/tool", "hack", "hack/tools/cmd/delta", "manifests", "overlays", "pkg/alpha", "pkg/beta", "test/gamma"}
	if !slices.Equal(dirs, want) {
		t.Fatalf("PackageDirs = %v, want %v", dirs, want)
	}
	page := "| path | what |\n|---|---|\n| `cmd/tool` | a |\n| `pkg/alpha/sub` | b |\n| `hack/` | c |\n" +
		"| `hack/tools/cmd/delta` | d |\n| `charts/x` | e |\n| `manifests/` | f |\n| `overlays/o`, `test/gamma` | g |\n" +
		"pkg/beta is named here without backquotes, which does not count.\n"
	wantProblems(t, CheckLayout(page, dirs), "does not list pkg/beta")
}

func TestCheckShBlocksReportsUnmarkedBlocksAndMissingTests(t *testing.T) {
	dir := tree(t, map[string]string{
		"test/demo/demo_test.go": "package demo\n\nimport \"testing\"\n\nfunc TestDemoRuns(t *testing.T) {}\n",
	})
	md := "# Start\n\n" +
		"<!-- illustration -->\n```sh\nkubectl get pods\n```\n\n" + // line 3
		"<!-- tested-by: test/demo TestDemoRuns -->\n```sh\nmake demo\n```\n\n" + // line 8
		"```sh\nmake unmarked\n```\n\n" + // line 13
		"<!-- illustration -->\n\n```sh\nmake marker-not-right-before\n```\n\n" + // line 17
		"<!-- tested-by: test/demo TestGone -->\n```sh\nmake gone\n```\n\n" + // line 23
		"<!-- tested-by: TestDemoRuns -->\n```sh\nmake no-dir\n```\n\n" + // line 28
		"```yaml\nnot: sh\n```\n" +
		"```\n```sh inside another block is not a block\n```\n"
	wantProblems(t, CheckShBlocks(dir, "start.md", md),
		"start.md:13: sh block is neither marked",
		"start.md:19: sh block is neither marked",
		"start.md:24: sh block: no test TestGone in test/demo",
		"start.md:29: sh block: marker",
	)
}
