// Package doccheck holds the documentation checks: every relative link of
// every tracked Markdown file resolves (anchors included, by GitHub's
// rules), the layout page lists every top-level package directory, and
// every ```sh block of the getting-started page is marked either as an
// illustration or as run by a named test. The checks need no control
// plane; doccheck_test.go runs them on the repository, and each has unit
// tests that plant a defect. See docs/development/testing.md.
package doccheck

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// Markers a ```sh block of the getting-started page carries on the line
// right before it.
const (
	IllustrationMarker = "<!-- illustration -->"
	testedByPrefix     = "<!-- tested-by:"
)

// MarkdownFiles lists the tracked .md files of the repository at root,
// slash-separated and relative to it. Without git (an unpacked archive) it
// walks the tree instead, skipping hidden and build directories.
func MarkdownFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--", "*.md")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		var files []string
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				files = append(files, f)
			}
		}
		return files, nil
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != root && (strings.HasPrefix(name, ".") || name == "bin" || name == "dist") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// line is one line of a Markdown page with its number and whether it lies
// in a fenced code block (the fences included).
type line struct {
	n      int
	text   string
	inCode bool
	// open marks the fence that opens a code block, info its info string
	// (the language).
	open bool
	info string
}

func lines(md string) []line {
	var out []line
	fence := ""
	for i, t := range strings.Split(md, "\n") {
		trimmed := strings.TrimLeft(t, " \t")
		l := line{n: i + 1, text: t, inCode: fence != ""}
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
			for _, r := range trimmed[3:] {
				if string(r) != fence[:1] {
					break
				}
				fence += string(r)
			}
			l.inCode, l.open = true, true
			l.info = strings.TrimSpace(trimmed[len(fence):])
		case fence != "" && strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "":
			fence = ""
		}
		out = append(out, l)
	}
	return out
}

var (
	codeSpan   = regexp.MustCompile("(`+)(.+?)(`+)")
	linkRe     = regexp.MustCompile(`!?\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	headingRe  = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$`)
	htmlTagRe  = regexp.MustCompile(`<[^>]+>`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:[^>]*\s)?(?:id|name)="([^"]+)"`)
)

// stripCode replaces inline code spans by their content with the
// characters that make links removed, so a link inside code is no link.
func stripCode(s string) string {
	return codeSpan.ReplaceAllStringFunc(s, func(m string) string {
		return strings.NewReplacer("[", "", "]", "", "(", "", ")", "").Replace(strings.Trim(m, "`"))
	})
}

// Slug is the anchor GitHub gives a heading's text: the rendered text
// (no code backquotes, links reduced to their text, no HTML tags),
// lowercased, every character but letters, marks, digits, '_', '-' and
// spaces dropped, and each space written '-'.
func Slug(heading string) string {
	s := codeSpan.ReplaceAllString(heading, "$2")
	s = linkRe.ReplaceAllString(s, "$1")
	s = htmlTagRe.ReplaceAllString(s, "")
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) ||
			unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Anchors lists the anchors of a page: its headings' slugs, a repeated
// one suffixed -1, -2, … as GitHub does, and explicit <a id|name="…">.
func Anchors(md string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, l := range lines(md) {
		if l.inCode {
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(l.text, -1) {
			anchors[m[1]] = true
		}
		m := headingRe.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		slug := Slug(m[2])
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// Link is a link target found on a page.
type Link struct {
	Line   int
	Target string
}

// Links lists the link targets of a page, outside code blocks and code
// spans.
func Links(md string) []Link {
	var out []Link
	for _, l := range lines(md) {
		if l.inCode {
			continue
		}
		for _, m := range linkRe.FindAllStringSubmatch(stripCode(l.text), -1) {
			out = append(out, Link{Line: l.n, Target: m[2]})
		}
	}
	return out
}

// external reports whether a target leaves the repository.
func external(target string) bool {
	u, err := url.Parse(target)
	return err == nil && (u.Scheme != "" || strings.HasPrefix(target, "//"))
}

// CheckLinks checks every relative link of the pages (slash-separated,
// relative to root): the file or directory exists, and an anchor names a
// heading of the target page. It returns one problem per broken link.
func CheckLinks(root string, pages []string) []string {
	var problems []string
	anchorsOf := map[string]map[string]bool{}
	anchors := func(page string) (map[string]bool, error) {
		if a, ok := anchorsOf[page]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(page)))
		if err != nil {
			return nil, err
		}
		anchorsOf[page] = Anchors(string(b))
		return anchorsOf[page], nil
	}
	for _, page := range pages {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(page)))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", page, err))
			continue
		}
		for _, l := range Links(string(b)) {
			if l.Target == "" || external(l.Target) {
				continue
			}
			where := fmt.Sprintf("%s:%d: link %q", page, l.Line, l.Target)
			file, anchor, _ := strings.Cut(l.Target, "#")
			file, err := url.PathUnescape(file)
			if err != nil {
				problems = append(problems, where+": "+err.Error())
				continue
			}
			target := page
			if file != "" {
				if strings.HasPrefix(file, "/") {
					target = path.Clean(strings.TrimPrefix(file, "/"))
				} else {
					target = path.Join(path.Dir(page), file)
				}
				if target == ".." || strings.HasPrefix(target, "../") {
					problems = append(problems, where+": leaves the repository")
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
					problems = append(problems, where+": no such file "+target)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			a, err := anchors(target)
			if err != nil {
				problems = append(problems, where+": "+err.Error())
				continue
			}
			if !a[anchor] {
				problems = append(problems, fmt.Sprintf("%s: no heading with anchor #%s in %s", where, anchor, target))
			}
		}
	}
	return problems
}

// PackageDirs lists the directories the layout page must name: each
// directory directly under cmd/, pkg/, test/ and hack/tools/cmd, and
// charts, manifests, overlays and hack themselves.
func PackageDirs(root string) ([]string, error) {
	dirs := []string{"charts", "manifests", "overlays", "hack"}
	for _, parent := range []string{"cmd", "pkg", "test", "hack/tools/cmd"} {
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(parent)))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "testdata" {
				dirs = append(dirs, parent+"/"+e.Name())
			}
		}
	}
	sort.Strings(dirs)
	return dirs, nil
}

var backquoted = regexp.MustCompile("`([^`]+)`")

// CheckLayout reports every directory of dirs the layout page does not
// name in backquotes, itself or a path under it (`pkg/apis/...` names
// pkg/apis; `charts/` names charts).
func CheckLayout(layoutPage string, dirs []string) []string {
	var names []string
	for _, m := range backquoted.FindAllStringSubmatch(layoutPage, -1) {
		names = append(names, strings.TrimPrefix(m[1], "./"))
	}
	var problems []string
	for _, d := range dirs {
		listed := false
		for _, n := range names {
			if n == d || strings.HasPrefix(n, d+"/") {
				listed = true
				break
			}
		}
		if !listed {
			problems = append(problems, fmt.Sprintf("the layout page does not list %s", d))
		}
	}
	return problems
}

// CheckShBlocks checks that every ```sh block of the page (named page in
// messages) has on the line right before it either IllustrationMarker or
// "<!-- tested-by: DIR TestName -->", where DIR (relative to root) has a
// _test.go file declaring func TestName(t *testing.T).
func CheckShBlocks(root, page, md string) []string {
	var problems []string
	ls := lines(md)
	for i, l := range ls {
		if !l.open || l.info != "sh" {
			continue
		}
		marker := ""
		if i > 0 {
			marker = strings.TrimSpace(ls[i-1].text)
		}
		where := fmt.Sprintf("%s:%d: sh block", page, l.n)
		switch {
		case marker == IllustrationMarker:
		case strings.HasPrefix(marker, testedByPrefix) && strings.HasSuffix(marker, "-->"):
			fields := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(marker, testedByPrefix), "-->"))
			if len(fields) != 2 {
				problems = append(problems, fmt.Sprintf("%s: marker %q must name a package directory and a test", where, marker))
				continue
			}
			if err := testExists(root, fields[0], fields[1]); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", where, err))
			}
		default:
			problems = append(problems, fmt.Sprintf("%s is neither marked %s nor %s DIR TestName -->", where, IllustrationMarker, testedByPrefix))
		}
	}
	return problems
}

// testExists reports whether dir has a _test.go file that declares the
// test function name.
func testExists(root, dir, name string) error {
	decl := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(name) + `\(\w+ \*testing\.T\)`)
	files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*_test.go"))
	if err != nil {
		return err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if decl.Match(b) {
			return nil
		}
	}
	return fmt.Errorf("no test %s in %s", name, dir)
}
