package nodeimages

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// debPackage is one package of the private suite, pinned to the version
// the lists offer.
type debPackage struct {
	name, version, arch string
}

// file is the name `apt-get download` gives the package's .deb.
func (p debPackage) file() string {
	return fmt.Sprintf("%s_%s_%s.deb", p.name, strings.ReplaceAll(p.version, ":", "%3a"), p.arch)
}

// dependsGraph runs one recursive `apt-cache depends` from the roots and
// returns each package's hard dependencies (virtual packages left out:
// the libraries the images need depend on real ones).
func (a privateApt) dependsGraph(ctx context.Context, roots ...string) (map[string][]string, error) {
	args := append([]string{"depends", "--recurse", "--no-recommends", "--no-suggests",
		"--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances"}, roots...)
	out, err := a.run(ctx, a.dir, "apt-cache", args...)
	if err != nil {
		return nil, err
	}
	return parseDepends(string(out)), nil
}

// parseDepends reads apt-cache depends' tree: a package name at the line
// start, then "  Depends: x", " |Depends: x" (an alternative),
// "  PreDepends: x", and deeper-indented providers, which are skipped.
func parseDepends(out string) map[string][]string {
	graph := map[string][]string{}
	var cur string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, " ") {
			cur = strings.TrimSpace(line)
			if _, ok := graph[cur]; !ok {
				graph[cur] = nil
			}
			continue
		}
		rest := strings.TrimLeft(line[1:], " |")
		if len(line)-len(strings.TrimLeft(line, " |")) > 2 {
			continue // a provider of the line above
		}
		kind, dep, ok := strings.Cut(rest, ": ")
		if ok && (kind == "Depends" || kind == "PreDepends") && !strings.HasPrefix(dep, "<") {
			graph[cur] = append(graph[cur], dep)
		}
	}
	return graph
}

// candidates asks the lists for the version apt would take of each name.
func (a privateApt) candidates(ctx context.Context, names []string) ([]debPackage, error) {
	args := append([]string{"show", "--no-all-versions"}, names...)
	out, err := a.run(ctx, a.dir, "apt-cache", args...)
	if err != nil {
		return nil, err
	}
	var pkgs []debPackage
	var p debPackage
	for _, line := range strings.Split(string(out)+"\n", "\n") {
		k, v, _ := strings.Cut(line, ": ")
		switch {
		case k == "Package":
			p = debPackage{name: v}
		case k == "Version":
			p.version = v
		case k == "Architecture":
			p.arch = v
		case line == "" && p.name != "":
			pkgs = append(pkgs, p)
			p = debPackage{}
		}
	}
	if len(pkgs) != len(names) {
		return nil, fmt.Errorf("apt-cache show: %d packages for %d names", len(pkgs), len(names))
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].name < pkgs[j].name })
	return pkgs, nil
}

// download fetches into dir the packages not there yet: dir is a cache
// keyed by name and version, never emptied by a build.
func (a privateApt) download(ctx context.Context, dir string, pkgs []debPackage) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var want []string
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, p.file())); err != nil {
			want = append(want, p.name+"="+p.version)
		}
	}
	if len(want) == 0 {
		return nil
	}
	if _, err := a.run(ctx, dir, "apt-get", append([]string{"download", "-q"}, want...)...); err != nil {
		return err
	}
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, p.file())); err != nil {
			return fmt.Errorf("apt-get download left no %s: %w", p.file(), err)
		}
	}
	return nil
}
