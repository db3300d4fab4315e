package nodeimages

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// PgBouncer comes from Debian 13 (trixie): CNPG 1.30 writes settings
// (auth_dbname) that Debian 12's 1.18 refuses. Its libraries come from
// trixie too (it wants glibc 2.38), so the image is a small trixie: no
// shell, only pgbouncer and what it links.
const (
	pgbouncerSuite = "trixie"
	pgbouncerUID   = 998 // CNPG's pooler Pod runs as 998:996
	pgbouncerGID   = 996
	// pgbouncerPath is what CNPG's `manager pgbouncer run` executes;
	// trixie installs the binary in /usr/sbin.
	pgbouncerPath = "/usr/bin/pgbouncer"
)

// pgbouncerSkipped are Debian's service scripts and sample configuration
// (CNPG writes its own under /controller/configs), and documentation.
var pgbouncerSkipped = []string{"/etc/default", "/etc/init.d", "/etc/pgbouncer", "/usr/lib/systemd",
	"/usr/share/doc", "/usr/share/lintian", "/usr/share/man", "/usr/share/pgbouncer"}

type pgbouncer struct {
	mirror string // Debian's mirror, as the host's sources name it
	update bool   // refresh the private lists even when present
}

func (pgbouncer) name() string { return "pgbouncer" }

func (b pgbouncer) prepare(ctx context.Context, e *env) (*plan, error) {
	apt := privateApt{dir: filepath.Join(e.cacheDir, "apt", pgbouncerSuite), mirror: b.mirror, suite: pgbouncerSuite}
	pkgs, err := b.resolve(ctx, apt)
	if err != nil {
		return nil, fmt.Errorf("pgbouncer image: %w", err)
	}
	in := inputs{"mirror": b.mirror + " " + pgbouncerSuite}
	var tag string
	for _, p := range pkgs {
		in["deb/"+p.name] = p.version
		if p.name == "pgbouncer" {
			tag, _, _ = strings.Cut(p.version, "-") // the upstream version
		}
	}
	debs := filepath.Join(e.cacheDir, "debs", pgbouncerSuite)
	return &plan{tag: tag, in: in, build: func(ctx context.Context, work string) (*rootFS, config, error) {
		if err := apt.download(ctx, debs, pkgs); err != nil {
			return nil, config{}, err
		}
		r, err := pgbouncerTree(ctx, debs, pkgs, filepath.Join(work, "root"))
		return r, pgbouncerConfig(), err
	}}, nil
}

// resolve finds pgbouncer and its library closure in the private lists,
// fetching them first when there are none (or when asked).
func (b pgbouncer) resolve(ctx context.Context, apt privateApt) ([]debPackage, error) {
	if err := apt.init(); err != nil {
		return nil, err
	}
	if b.update || !apt.hasLists() {
		if err := apt.update(ctx); err != nil {
			return nil, err
		}
	}
	graph, err := apt.dependsGraph(ctx, "pgbouncer")
	if err != nil {
		return nil, err
	}
	return apt.candidates(ctx, libraryClosure(graph, "pgbouncer"))
}

// libraryClosure is root and what its lib* dependencies need, all of it:
// root's other dependencies (postgresql-common, init-system-helpers) are
// Debian's service glue, and debconf, which libpam0g names for its
// maintainer scripts, links nothing.
func libraryClosure(graph map[string][]string, root string) []string {
	seen := map[string]bool{root: true}
	var queue []string
	for _, d := range graph[root] {
		if strings.HasPrefix(d, "lib") {
			queue = append(queue, d)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if seen[n] || n == "debconf" {
			continue
		}
		seen[n] = true
		queue = append(queue, graph[n]...)
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// pgbouncerTree unpacks the packages into staging and lays the image out.
func pgbouncerTree(ctx context.Context, debs string, pkgs []debPackage, staging string) (*rootFS, error) {
	r, err := debianTree(ctx, debs, pkgs, staging, skipPaths(pgbouncerSkipped))
	if err != nil {
		return nil, err
	}
	if !r.Has("/usr/sbin/pgbouncer") {
		return nil, fmt.Errorf("pgbouncer's package has no /usr/sbin/pgbouncer")
	}
	r.Symlink(pgbouncerPath, "../sbin/pgbouncer")
	r.accounts("pgbouncer", pgbouncerUID, pgbouncerGID, "/var/lib/pgbouncer")
	r.Dir("/tmp", 0o1777, 0, 0)
	return r, nil
}

// debianTree unpacks the packages, from the cache directory debs, into
// staging and starts an image of their /usr and /etc, without what skip
// names; /bin, /lib, /lib64 and /sbin are links into /usr, as on trixie,
// which ships everything there.
func debianTree(ctx context.Context, debs string, pkgs []debPackage, staging string, skip func(string) bool) (*rootFS, error) {
	for _, p := range pkgs {
		out, err := exec.CommandContext(ctx, "dpkg-deb", "-x", filepath.Join(debs, p.file()), staging).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("dpkg-deb -x %s: %w\n%s", p.file(), err, out)
		}
	}
	if err := onlyUsrAndEtc(staging); err != nil {
		return nil, err
	}
	r := newRootFS()
	for _, l := range []string{"bin", "lib", "lib64", "sbin"} {
		r.Symlink("/"+l, "usr/"+l)
	}
	for _, dir := range []string{"/usr", "/etc"} {
		if err := r.copyTree(staging, dir, skip); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// skipPaths leaves out exactly the image paths named (and what is under
// them).
func skipPaths(paths []string) func(string) bool {
	return func(p string) bool { return slices.Contains(paths, p) }
}

// onlyUsrAndEtc refuses a package set that ships files outside /usr and
// /etc: they would be left out of the image without a word (the images
// made of unpacked Debian packages). Empty directories elsewhere (libc-bin's
// /var/cache/ldconfig) are left out.
func onlyUsrAndEtc(staging string) error {
	top, err := os.ReadDir(staging)
	if err != nil {
		return err
	}
	for _, d := range top {
		if d.Name() == "usr" || d.Name() == "etc" {
			continue
		}
		err := filepath.WalkDir(filepath.Join(staging, d.Name()), func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				return fmt.Errorf("a package ships %s: the image keeps only /usr and /etc", strings.TrimPrefix(p, staging))
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func pgbouncerConfig() config {
	return config{
		User:       fmt.Sprintf("%d:%d", pgbouncerUID, pgbouncerGID),
		Entrypoint: []string{pgbouncerPath},
		WorkingDir: "/",
	}
}
