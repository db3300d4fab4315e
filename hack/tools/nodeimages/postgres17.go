package nodeimages

import (
	"context"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// PostgreSQL 17 comes from Debian 13 (trixie): Debian 12 has only 15. It
// is laid out as the 15 image is (see postgres.go), so CNPG runs either
// the same way: the server under /usr/lib/postgresql/<major> and
// /usr/share/postgresql/<major>, contrib's extensions (pg_trgm,
// uuid-ossp, pgcrypto, …: Debian ships them in postgresql-17), the
// compiled C.utf8 locale, gconv, time zones, busybox as /bin/sh, user 26,
// the same PATH, LANG and PGDATA, and the tag 17.<minor> in the same
// repository (localhost/setpoint/postgresql), from which CNPG reads the
// major. Its libraries are trixie's, unpacked from packages fetched with
// pgbouncer's private apt state (the host's apt and dpkg untouched).
//
// It also carries the libraries the 15 image's binaries need that
// trixie lacks (ICU 72, OpenLDAP 2.5, …, copied from the host that the 15
// image is made from): CNPG's major upgrade runs pg_upgrade in the
// target image, with the old major's bin, lib and share directories
// copied in from the old image (`manager instance upgrade prepare`), and
// pg_upgrade runs the old postgres and pg_controldata.
const (
	pg17Major   = "17"
	pg17Suite   = pgbouncerSuite
	pg17Lib     = "/usr/lib/postgresql/" + pg17Major
	pg17Share   = "/usr/share/postgresql/" + pg17Major
	pg17Package = "postgresql-" + pg17Major
)

// pg17Roots are the packages the image is made of, with everything they
// need that pg17Skipped does not leave out.
var pg17Roots = []string{pg17Package, "postgresql-client-" + pg17Major, "libc-bin", "tzdata", "openssl", "busybox-static"}

// pg17Skipped are dependencies the image does without: Debian's cluster
// management (postgresql-common's pg_wrapper and its Perl; CNPG runs the
// versioned binaries from PATH), the snakeoil certificate (CNPG makes
// its own), the locales (initdb needs only C.utf8, which libc-bin
// ships), LLVM (the JIT is left out, as in the 15 image), the packaging
// machinery, and what only they need.
var pg17Skipped = map[string]bool{
	"postgresql-common": true, "postgresql-client-common": true, "postgresql-common-dev": true,
	"ssl-cert": true, "locales": true, "locales-all": true, "sensible-utils": true, "libllvm19": true,
	"debconf": true, "cdebconf": true, "dpkg": true, "init-system-helpers": true, "adduser": true,
	"perl": true, "perl-base": true, "ucf": true, "sysstat": true,
}

// pg17SkippedPaths are documentation, man pages and Debian's maintainer
// data.
var pg17SkippedPaths = []string{"/usr/share/doc", "/usr/share/man", "/usr/share/info", "/usr/share/lintian",
	"/usr/share/locale", "/usr/share/bug", pg17Share + "/man"}

type postgres17 struct {
	mirror string
}

// name is the image's own name in images.json and its archive's; its
// references share the 15 image's repository (repository below).
func (postgres17) name() string { return "postgresql-" + pg17Major }

func (postgres17) repository() string { return "postgresql" }

func (p postgres17) prepare(ctx context.Context, e *env) (*plan, error) {
	apt := privateApt{dir: filepath.Join(e.cacheDir, "apt", pg17Suite), mirror: p.mirror, suite: pg17Suite}
	pkgs, err := resolvePostgres17(ctx, apt)
	if err != nil {
		return nil, fmt.Errorf("postgresql %s image: %w", pg17Major, err)
	}
	in := inputs{"mirror": p.mirror + " " + pg17Suite}
	var tag string
	for _, d := range pkgs {
		in["deb/"+d.name] = d.version
		if d.name == pg17Package {
			tag = upstreamMinor(d.version)
		}
	}
	if !regexp.MustCompile(`^` + pg17Major + `\.\d+$`).MatchString(tag) {
		return nil, fmt.Errorf("postgresql %s image: %s's version gives the tag %q, want %s.N", pg17Major, pg17Package, tag, pg17Major)
	}
	// The old major's libraries come from the host, as the 15 image's do.
	installed, err := installedPackages(ctx)
	if err != nil {
		return nil, err
	}
	host, err := dependencyVersions(installed, postgresPackages...)
	if err != nil {
		return nil, fmt.Errorf("postgresql %s image, the %s libraries (make postgres node-packages): %w", pg17Major, pgMajor, err)
	}
	in["host/"+pgMajor] = strings.Join(host, " ")
	debs := filepath.Join(e.cacheDir, "debs", pg17Suite)
	return &plan{tag: tag, in: in, build: func(ctx context.Context, work string) (*rootFS, config, error) {
		if err := apt.download(ctx, debs, pkgs); err != nil {
			return nil, config{}, err
		}
		r, err := postgres17Tree(ctx, debs, pkgs, filepath.Join(work, "root"))
		if err != nil {
			return nil, config{}, fmt.Errorf("postgresql %s image: %w", pg17Major, err)
		}
		return r, pgConfig(pg17Lib), nil
	}}, nil
}

// upstreamMinor is "17.12" of Debian's "17.12-0+deb13u1".
func upstreamMinor(debVersion string) string {
	v, _, _ := strings.Cut(debVersion, "-")
	if _, after, ok := strings.Cut(v, ":"); ok {
		v = after
	}
	return v
}

// resolvePostgres17 finds the roots and what they need in the private
// lists (fetched once; pgbouncer's recipe refreshes them when asked).
func resolvePostgres17(ctx context.Context, apt privateApt) ([]debPackage, error) {
	if err := apt.init(); err != nil {
		return nil, err
	}
	if !apt.hasLists() {
		if err := apt.update(ctx); err != nil {
			return nil, err
		}
	}
	graph, err := apt.dependsGraph(ctx, pg17Roots...)
	if err != nil {
		return nil, err
	}
	return apt.candidates(ctx, closureOf(graph, pg17Skipped, pg17Roots...))
}

// closureOf is the union of the roots' dependency closures.
func closureOf(graph map[string][]string, skipped map[string]bool, roots ...string) []string {
	set := map[string]bool{}
	for _, root := range roots {
		for _, n := range dependencyClosure(graph, root, skipped) {
			set[n] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// postgres17Tree unpacks the packages into staging and lays the image
// out as the 15 image is.
func postgres17Tree(ctx context.Context, debs string, pkgs []debPackage, staging string) (*rootFS, error) {
	skipped := skipPaths(pg17SkippedPaths)
	r, err := debianTree(ctx, debs, pkgs, staging, func(p string) bool {
		return skipped(p) || strings.HasPrefix(p, pg17Lib+"/") && dropJIT(p)
	})
	if err != nil {
		return nil, err
	}
	for _, want := range []string{pg17Lib + "/bin/postgres", pg17Lib + "/bin/initdb", pg17Lib + "/bin/psql",
		pg17Share + "/postgres.bki", "/usr/lib/locale/C.utf8/LC_CTYPE", "/usr/share/zoneinfo/Etc/UTC"} {
		if !r.Has(want) {
			return nil, fmt.Errorf("the packages have no %s", want)
		}
	}
	if err := r.busyboxFrom(ctx, filepath.Join(staging, "/usr/bin/busybox")); err != nil {
		return nil, err
	}
	if err := r.copyMissingLibraries(ctx, pgLib); err != nil {
		return nil, fmt.Errorf("the %s binaries' libraries: %w", pgMajor, err)
	}
	if err := r.checkNeeded(); err != nil {
		return nil, err
	}
	return r, r.postgresAccounts()
}

// copyMissingLibraries adds the host libraries that the ELF files under
// host directory dir (LLVM's JIT left out, as the 15 image leaves it) need (as ldd resolves them on the host) and that the
// image lacks by name in its library directory: the image's own, newer,
// version of a library wins.
func (r *rootFS) copyMissingLibraries(ctx context.Context, dir string) error {
	elves, err := hostELFFiles(dir, dropJIT)
	if err != nil {
		return err
	}
	return r.addHostLibraries(ctx, elves, func(lib string) bool { return !r.Has(multiarchLib + "/" + path.Base(lib)) })
}
