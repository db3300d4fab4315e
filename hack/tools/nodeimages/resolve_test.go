package nodeimages

import (
	"slices"
	"strings"
	"testing"
)

// A trimmed `apt-cache depends --recurse pgbouncer` of trixie.
const dependsOutput = `pgbouncer
  PreDepends: init-system-helpers
  Depends: postgresql-common
  Depends: libc6
  Depends: libpam0g
  Depends: libssl3t64
postgresql-common
 |Depends: debconf
  Depends: <debconf-2.0>
    cdebconf
    debconf
  Depends: perl
libc6
  Depends: libgcc-s1
libpam0g
  Depends: libaudit1
  Depends: debconf
libssl3t64
  Depends: libc6
  Depends: zlib1g
libaudit1
libgcc-s1
zlib1g
`

func TestParseDepends(t *testing.T) {
	g := parseDepends(dependsOutput)
	if got := g["postgresql-common"]; !slices.Equal(got, []string{"debconf", "perl"}) {
		t.Errorf("postgresql-common depends on %v, want debconf and perl (no virtual, no providers)", got)
	}
	if got := g["pgbouncer"]; !slices.Equal(got, []string{"init-system-helpers", "postgresql-common", "libc6", "libpam0g", "libssl3t64"}) {
		t.Errorf("pgbouncer depends on %v", got)
	}
}

func TestLibraryClosure(t *testing.T) {
	got := libraryClosure(parseDepends(dependsOutput), "pgbouncer")
	want := []string{"libaudit1", "libc6", "libgcc-s1", "libpam0g", "libssl3t64", "pgbouncer", "zlib1g"}
	if !slices.Equal(got, want) {
		t.Errorf("closure %v, want %v (libraries and what they need, not Debian's service glue or debconf)", got, want)
	}
}

// The sidecar keeps every dependency but the skipped ones, and what only
// they need: perl comes in only through postgresql-common here.
func TestDependencyClosure(t *testing.T) {
	skipped := map[string]bool{"postgresql-common": true, "debconf": true}
	got := dependencyClosure(parseDepends(dependsOutput), "pgbouncer", skipped)
	want := []string{"init-system-helpers", "libaudit1", "libc6", "libgcc-s1", "libpam0g", "libssl3t64", "pgbouncer", "zlib1g"}
	if !slices.Equal(got, want) {
		t.Errorf("closure %v, want %v", got, want)
	}
}

func TestDependencyVersions(t *testing.T) {
	pkgs := map[string]dpkgPackage{}
	for _, p := range []dpkgPackage{
		{name: "postgresql-15", version: "15.18-0+deb12u1", depends: relations("libc6 (>= 2.34), locales | locales-all, libssl3 (>= 3.0.0), postgresql-common (>= 229~)")},
		{name: "libc6", version: "2.36-9+deb12u14", depends: relations("libgcc-s1")},
		{name: "libgcc-s1", version: "12.2.0-14"},
		{name: "locales-all", version: "2.36-9+deb12u14"},
		{name: "libssl3", version: "3.0.17-1~deb12u2", provides: []string{"libssl"}},
		{name: "postgresql-common", version: "248+deb12u1", depends: relations("libssl")},
	} {
		pkgs[p.name] = p
	}
	got, err := dependencyVersions(pkgs, "postgresql-15")
	if err != nil {
		t.Fatal(err)
	}
	want := "libc6=2.36-9+deb12u14 libgcc-s1=12.2.0-14 libssl3=3.0.17-1~deb12u2 locales-all=2.36-9+deb12u14 postgresql-15=15.18-0+deb12u1 postgresql-common=248+deb12u1"
	if strings.Join(got, " ") != want {
		t.Errorf("versions\n %s\nwant\n %s", strings.Join(got, " "), want)
	}
	if _, err := dependencyVersions(pkgs, "postgresql-16"); err == nil {
		t.Error("a root that is not installed gave no error")
	}
}

func TestDebFileName(t *testing.T) {
	p := debPackage{name: "zlib1g", version: "1:1.3.dfsg+really1.3.1-1+deb13u1", arch: "amd64"}
	if got, want := p.file(), "zlib1g_1%3a1.3.dfsg+really1.3.1-1+deb13u1_amd64.deb"; got != want {
		t.Errorf("file %s, want apt-get download's %s", got, want)
	}
}

func TestValidateRefusesFileUnderLink(t *testing.T) {
	r := newRootFS()
	r.Symlink("/lib", "usr/lib")
	r.File("/lib/x.so", 0o644, nil)
	if _, err := r.tarball(); err == nil {
		t.Error("a file under a symlinked directory was accepted")
	}
}
