package nodeimages

import (
	"context"
	"fmt"
	"os/exec"
	"path"
	"regexp"
	"strings"
)

// PostgreSQL's image is made from the host's Debian postgresql-15: CNPG
// runs its instance manager in it (copied in by the bootstrap init
// container), which runs initdb, pg_ctl, postgres, pg_basebackup,
// pg_rewind, pg_controldata from PATH, and postgres runs archive_command
// and restore_command through /bin/sh.
const (
	pgMajor   = "15"
	pgLib     = "/usr/lib/postgresql/" + pgMajor
	pgShare   = "/usr/share/postgresql/" + pgMajor
	pgUID     = 26                         // the uid CNPG runs PostgreSQL as
	pgDataDir = "/var/lib/postgresql/data" // CNPG mounts the PVC here
)

// postgresPackages are the roots of the image's Debian inputs: their
// versions and their dependencies' (the libraries ldd finds) key the image.
var postgresPackages = []string{"postgresql-" + pgMajor, "postgresql-client-" + pgMajor,
	"busybox-static", "tzdata", "libc-bin", "libc6"}

type postgres struct{}

func (postgres) name() string { return "postgresql" }

func (postgres) prepare(ctx context.Context, _ *env) (*plan, error) {
	tag, err := postgresVersion(ctx)
	if err != nil {
		return nil, err
	}
	pkgs, err := installedPackages(ctx)
	if err != nil {
		return nil, err
	}
	versions, err := dependencyVersions(pkgs, postgresPackages...)
	if err != nil {
		return nil, fmt.Errorf("postgresql image (install postgresql-15 and busybox-static: make postgres node-packages): %w", err)
	}
	in := inputs{"debian": strings.Join(versions, " ")}
	return &plan{tag: tag, in: in, build: func(ctx context.Context, _ string) (*rootFS, config, error) {
		r, err := postgresTree(ctx)
		return r, pgConfig(pgLib), err
	}}, nil
}

var pgVersionRE = regexp.MustCompile(`\(PostgreSQL\) (` + pgMajor + `\.\d+)`)

// postgresVersion is the exact minor version, the image's tag: CNPG
// reads the major version from the tag.
func postgresVersion(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, pgLib+"/bin/postgres", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("postgres --version: %w", err)
	}
	m := pgVersionRE.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("postgres --version said %q, want PostgreSQL %s.N", out, pgMajor)
	}
	return string(m[1]), nil
}

// postgresTree lays the image out. The host is merged-/usr, and so is the
// image: /bin, /lib and /lib64 are links into /usr.
func postgresTree(ctx context.Context) (*rootFS, error) {
	r := newRootFS()
	for _, l := range []string{"bin", "lib", "lib64"} {
		r.Symlink("/"+l, "usr/"+l)
	}
	steps := []func() error{
		func() error { return r.copyTree("/", pgLib, dropJIT) },
		func() error { return r.copyTree("/", pgShare, dropMan) },
		func() error { return r.copyLibraries(ctx, pgLib) },
		func() error { return r.copyTree("/", "/usr/lib/x86_64-linux-gnu/gconv", nil) },
		func() error { return r.copyTree("/", "/usr/lib/locale/C.utf8", nil) }, // initdb needs it
		func() error { return r.copyTree("/", "/usr/share/zoneinfo", nil) },
		func() error { return r.copyFile("/usr/lib/ssl/openssl.cnf") },
		func() error { return r.busybox(ctx) },
		r.postgresAccounts,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, fmt.Errorf("postgresql image: %w", err)
		}
	}
	return r, nil
}

// dropJIT leaves LLVM's JIT out: the provider and the bitcode are 150 MiB
// of the 245 and only matter with jit=on, which tests do not need.
func dropJIT(p string) bool {
	return path.Base(p) == "bitcode" || strings.HasPrefix(path.Base(p), "llvmjit")
}

func dropMan(p string) bool { return p == pgShare+"/man" }

// postgresAccounts adds the postgres user and the directories it owns:
// the data volume's mount point and Debian's default socket directory
// (psql inside the container finds the server there unless PGHOST says
// otherwise).
func (r *rootFS) postgresAccounts() error {
	r.File("/etc/passwd", 0o644, fmt.Appendf(nil,
		"root:x:0:0:root:/root:/bin/sh\npostgres:x:%d:%d:PostgreSQL:/var/lib/postgresql:/bin/sh\n", pgUID, pgUID))
	r.File("/etc/group", 0o644, fmt.Appendf(nil, "root:x:0:\npostgres:x:%d:\n", pgUID))
	// glibc's defaults would do; said outright, no lookup tries a module
	// the image lacks.
	r.File("/etc/nsswitch.conf", 0o644, []byte("passwd: files\ngroup: files\nhosts: files dns\n"))
	r.Dir("/var/lib/postgresql", 0o755, pgUID, pgUID)
	r.Dir(pgDataDir, 0o700, pgUID, pgUID)
	r.Dir("/run/postgresql", 0o2775, pgUID, pgUID)
	r.Dir("/tmp", 0o1777, 0, 0)
	return nil
}

// pgConfig runs postgres as CNPG does, with lib's binaries first on PATH.
func pgConfig(lib string) config {
	return config{
		User: fmt.Sprint(pgUID),
		Env: []string{
			"PATH=" + lib + "/bin:/usr/bin:/bin",
			"LANG=C.UTF-8",
			"PGDATA=" + pgDataDir + "/pgdata",
		},
		Cmd:        []string{"postgres"},
		WorkingDir: "/",
	}
}
