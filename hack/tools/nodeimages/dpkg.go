package nodeimages

import (
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strings"
)

// dpkgPackage is one installed package as dpkg knows it.
type dpkgPackage struct {
	name, version string
	provides      []string
	depends       [][]string // AND of ORs of package names
}

// installedPackages reads dpkg's database in one call.
func installedPackages(ctx context.Context) (map[string]dpkgPackage, error) {
	out, err := exec.CommandContext(ctx, "dpkg-query", "-W",
		"-f=${db:Status-Status}\t${Package}\t${Version}\t${Provides}\t${Pre-Depends}, ${Depends}\n").Output()
	if err != nil {
		return nil, fmt.Errorf("dpkg-query: %w", err)
	}
	pkgs := map[string]dpkgPackage{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 || f[0] != "installed" {
			continue
		}
		pkgs[f[1]] = dpkgPackage{name: f[1], version: f[2], provides: names(f[3]), depends: relations(f[4])}
	}
	return pkgs, nil
}

// relations parses a Depends field into groups of alternatives.
func relations(field string) [][]string {
	var groups [][]string
	for _, group := range strings.Split(field, ",") {
		if alts := names(strings.ReplaceAll(group, "|", ",")); len(alts) > 0 {
			groups = append(groups, alts)
		}
	}
	return groups
}

// names parses "a (>= 1), b:any" into [a b].
func names(list string) []string {
	var out []string
	for _, item := range strings.Split(list, ",") {
		item, _, _ = strings.Cut(strings.TrimSpace(item), " ")
		item, _, _ = strings.Cut(item, ":")
		if item != "" {
			out = append(out, item)
		}
	}
	return out
}

// dependencyVersions returns "package=version" for roots and everything
// they depend on, installed: the Debian side of an image's inputs. A
// dependency met by any installed alternative (or a package providing
// it) follows that one.
func dependencyVersions(pkgs map[string]dpkgPackage, roots ...string) ([]string, error) {
	providers := map[string]string{}
	for _, p := range pkgs {
		for _, v := range p.provides {
			providers[v] = p.name
		}
	}
	seen := map[string]bool{}
	queue := append([]string(nil), roots...)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if seen[n] {
			continue
		}
		p, ok := pkgs[n]
		if !ok {
			return nil, fmt.Errorf("package %s is not installed", n)
		}
		seen[n] = true
		for _, alts := range p.depends {
			if dep := installedAlternative(pkgs, providers, alts); dep != "" {
				queue = append(queue, dep)
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n+"="+pkgs[n].version)
	}
	sort.Strings(out)
	return out, nil
}

func installedAlternative(pkgs map[string]dpkgPackage, providers map[string]string, alts []string) string {
	for _, a := range alts {
		if _, ok := pkgs[a]; ok {
			return a
		}
		if p, ok := providers[a]; ok {
			return p
		}
	}
	return ""
}
