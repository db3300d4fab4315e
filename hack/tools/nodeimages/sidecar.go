package nodeimages

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The barman-cloud plugin's instance sidecar: the plugin's manager (CNPG
// runs it as `instance` beside each Postgres and as `restore` in recovery
// Jobs) and barman's cloud tools, which the manager runs from PATH
// (barman-cloud-wal-archive, -wal-restore, -backup, -backup-list,
// -backup-show, -backup-delete, -check-wal-archive). Upstream builds the
// tools with pip (barman 3.19.1); here they are Debian 13's
// barman-cli-cloud (3.13.x) with its Python, unpacked from packages
// fetched with the same private apt state as pgbouncer's: the host's apt
// and dpkg are never touched. The flags the plugin passes (through
// github.com/cloudnative-pg/barman-cloud, the command builder CNPG's
// in-tree barmanObjectStore used with barman 3.4) all exist in 3.13.
const (
	sidecarSuite = pgbouncerSuite
	sidecarRoot  = "barman-cli-cloud"
	// sidecarUID is the user upstream's sidecar image runs as: postgres,
	// which owns the PGDATA the tools read.
	sidecarUID = pgUID
)

// sidecarSkippedPackages are dependencies of the tools' packages that are
// Debian's packaging machinery (debconf and its front ends, dpkg, service
// glue) or barman's non-cloud transport (rsync): nothing the cloud tools
// run. What only they depend on is left out with them.
var sidecarSkippedPackages = map[string]bool{
	"debconf": true, "cdebconf": true, "dpkg": true, "init-system-helpers": true,
	"libdebian-installer4": true, "libnewt0.52": true, "libslang2": true, "libtextwrap1": true,
	"rsync": true,
}

// sidecarSkippedPaths are documentation and Debian's maintainer data.
var sidecarSkippedPaths = []string{"/usr/share/doc", "/usr/share/man", "/usr/share/info",
	"/usr/share/lintian", "/usr/share/locale"}

type barmanSidecar struct {
	mirror    string
	moduleDir string // the module pinning the plugin
	pkg       string // the plugin's manager, as `go build` names it
	pinned    string // the plugin's module: its version is the tag
}

func (barmanSidecar) name() string { return "barman-cloud-sidecar" }

func (s barmanSidecar) prepare(ctx context.Context, e *env) (*plan, error) {
	dir := filepath.Join(e.root, s.moduleDir)
	v, err := moduleVersion(filepath.Join(dir, "go.mod"), s.pinned)
	if err != nil {
		return nil, err
	}
	apt := privateApt{dir: filepath.Join(e.cacheDir, "apt", sidecarSuite), mirror: s.mirror, suite: sidecarSuite}
	pkgs, err := s.resolve(ctx, apt)
	if err != nil {
		return nil, fmt.Errorf("barman-cloud sidecar image: %w", err)
	}
	in := inputs{"mirror": s.mirror + " " + sidecarSuite}
	for _, p := range pkgs {
		in["deb/"+p.name] = p.version
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if err := in.addFileHash(s.moduleDir+"/"+f, filepath.Join(dir, f)); err != nil {
			return nil, err
		}
	}
	debs := filepath.Join(e.cacheDir, "debs", sidecarSuite)
	return &plan{tag: strings.TrimPrefix(v, "v"), in: in, build: func(ctx context.Context, work string) (*rootFS, config, error) {
		bin, err := goBuild(ctx, dir, s.pkg, filepath.Join(work, "manager"))
		if err != nil {
			return nil, config{}, err
		}
		if err := apt.download(ctx, debs, pkgs); err != nil {
			return nil, config{}, err
		}
		r, err := sidecarTree(ctx, debs, pkgs, filepath.Join(work, "root"), bin)
		return r, sidecarConfig(), err
	}}, nil
}

// resolve finds the tools' package and everything it needs in the private
// lists (fetched once; pgbouncer's recipe refreshes them when asked).
func (s barmanSidecar) resolve(ctx context.Context, apt privateApt) ([]debPackage, error) {
	if err := apt.init(); err != nil {
		return nil, err
	}
	if !apt.hasLists() {
		if err := apt.update(ctx); err != nil {
			return nil, err
		}
	}
	graph, err := apt.dependsGraph(ctx, sidecarRoot)
	if err != nil {
		return nil, err
	}
	return apt.candidates(ctx, dependencyClosure(graph, sidecarRoot, sidecarSkippedPackages))
}

// dependencyClosure is root and every hard dependency reachable from it,
// not through a skipped package. Unlike pgbouncer's library closure it
// keeps everything: Python's modules are packages, not libraries.
func dependencyClosure(graph map[string][]string, root string, skipped map[string]bool) []string {
	seen := map[string]bool{}
	queue := []string{root}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if seen[n] || skipped[n] {
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

// sidecarTree unpacks the packages into staging and lays the image out:
// Debian's /usr and /etc, the manager at /manager (where the plugin's
// sidecar template runs it, `/manager healthcheck unix` included).
func sidecarTree(ctx context.Context, debs string, pkgs []debPackage, staging string, manager []byte) (*rootFS, error) {
	r, err := debianTree(ctx, debs, pkgs, staging, skipPaths(sidecarSkippedPaths))
	if err != nil {
		return nil, err
	}
	bundle, err := caBundle(filepath.Join(staging, caCertificatesDir))
	if err != nil {
		return nil, err
	}
	r.File(caBundlePath, 0o644, bundle)
	for _, tool := range []string{"/usr/bin/python3", "/usr/bin/barman-cloud-backup", "/usr/bin/barman-cloud-wal-archive"} {
		if !r.Has(tool) {
			return nil, fmt.Errorf("the sidecar's packages have no %s", tool)
		}
	}
	r.File("/manager", 0o755, manager)
	r.accounts("postgres", sidecarUID, sidecarUID, "/var/lib/postgresql")
	r.Dir("/var/lib/postgresql", 0o755, sidecarUID, sidecarUID)
	r.Dir("/tmp", 0o1777, 0, 0)
	return r, nil
}

func sidecarConfig() config {
	return config{
		User:       fmt.Sprintf("%d:%d", sidecarUID, sidecarUID),
		Entrypoint: []string{"/manager"},
		// PYTHONDONTWRITEBYTECODE: the image ships no compiled modules
		// (dpkg's postinst would make them) and its files are root's.
		// AWS_*_CHECKSUM_*: botocore 1.36 and later (trixie has 1.37) add
		// CRC checksums to every request and check them in answers unless
		// told to do so only where S3 requires it; S3-compatible stores
		// (the node's gofakes3 among them) know only the older protocol.
		Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1",
			"AWS_REQUEST_CHECKSUM_CALCULATION=when_required", "AWS_RESPONSE_CHECKSUM_VALIDATION=when_required"},
		WorkingDir: "/",
	}
}

// Debian's ca-certificates ships the certificates; its maintainer script
// (update-ca-certificates, which dpkg-deb -x does not run) writes the
// bundle. Python's requests, which botocore imports, loads the bundle when
// it is imported, so without it no barman tool starts, even for plain
// HTTP.
const (
	caCertificatesDir = "/usr/share/ca-certificates"
	caBundlePath      = "/etc/ssl/certs/ca-certificates.crt"
)

// caBundle concatenates every certificate under dir in name order, as
// update-ca-certificates does with Debian's default configuration (all
// of them enabled).
func caBundle(dir string) ([]byte, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".crt") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("CA bundle: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("CA bundle: no certificate under %s", dir)
	}
	sort.Strings(files)
	var out []byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("CA bundle: %w", err)
		}
		out = append(out, data...)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			out = append(out, '\n')
		}
	}
	return out, nil
}
