package nodeimages

import (
	"archive/tar"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/hack/tools/imagebuild"
)

// structure is what one image must hold: checked on the archives `make
// node-images` built, and on the pause image this test builds itself.
var structure = map[string]func(t *testing.T, u unpacked){
	"pause": func(t *testing.T, u unpacked) {
		wantFile(t, u, "/pause", 0o755, 65535)
		wantConfig(t, u, "65535:65535", nil, []string{"/pause"})
		wantPasswd(t, u, "pause:x:65535:65535:")
	},
	"cnpg": func(t *testing.T, u unpacked) {
		wantFile(t, u, "/manager", 0o755, 65532) // the bootstrap init container copies it
		wantConfig(t, u, "65532:65532", nil, []string{"/manager"})
		wantPasswd(t, u, "nonroot:x:65532:65532:")
		wantLink(t, u, "/operator/manager_"+runtime.GOARCH, "/manager") // the architectures the operator offers
	},
	"coredns": func(t *testing.T, u unpacked) {
		wantFile(t, u, "/coredns", 0o755, 65532)
		wantConfig(t, u, "65532:65532", nil, []string{"/coredns"})
	},
	"postgresql":    func(t *testing.T, u unpacked) { checkPostgres(t, u, pgMajor) },
	"postgresql-17": func(t *testing.T, u unpacked) { checkPostgres(t, u, pg17Major) },
	"pgbouncer":     checkPgbouncer,
	"barman-cloud": func(t *testing.T, u unpacked) {
		wantFile(t, u, "/manager", 0o755, 65532)
		wantConfig(t, u, "65532:65532", nil, []string{"/manager"})
	},
	"barman-cloud-sidecar": checkSidecar,
	"s3store": func(t *testing.T, u unpacked) {
		wantFile(t, u, "/s3store", 0o755, 65532)
		wantConfig(t, u, "65532:65532", nil, []string{"/s3store"})
	},
}

// checkSidecar: the plugin's manager where its sidecar template runs it,
// and barman's cloud tools with their Python on PATH, as postgres.
func checkSidecar(t *testing.T, u unpacked) {
	wantFile(t, u, "/manager", 0o755, 0)
	for _, tool := range []string{"backup", "backup-list", "backup-show", "backup-delete", "wal-archive", "wal-restore", "check-wal-archive"} {
		wantPresent(t, u, "/usr/bin/barman-cloud-"+tool)
	}
	wantPresent(t, u, "/usr/bin/python3")
	wantPresent(t, u, caBundlePath) // requests loads it when botocore imports it
	wantPresent(t, u, "/usr/lib64/ld-linux-x86-64.so.2")
	wantLink(t, u, "/lib64", "usr/lib64")
	wantPasswd(t, u, "postgres:x:26:26:")
	wantConfig(t, u, "26:26", []string{"PATH=/usr/local/bin:/usr/bin:/bin"}, []string{"/manager"})
	if tag := u.annotations[imagebuild.RefNameAnnotation]; tag != "0.14.0" {
		t.Errorf("tag %q, want the plugin's version 0.14.0", tag)
	}
}

// checkPostgres: what CNPG's instance manager runs, and the extensions
// the tests create (contrib's), for either major, laid out alike.
func checkPostgres(t *testing.T, u unpacked, major string) {
	lib, share := "/usr/lib/postgresql/"+major, "/usr/share/postgresql/"+major
	for _, bin := range []string{"postgres", "initdb", "pg_ctl", "pg_controldata", "pg_basebackup", "pg_rewind", "pg_isready",
		"psql", "pg_config", "pg_upgrade", "pg_dump"} {
		wantFile(t, u, lib+"/bin/"+bin, 0o755, 0)
	}
	for _, f := range []string{share + "/postgres.bki", share + "/extension/pgcrypto.control", share + "/extension/pg_trgm.control",
		share + "/extension/uuid-ossp.control", lib + "/lib/pg_trgm.so", lib + "/lib/uuid-ossp.so",
		"/usr/lib/locale/C.utf8/LC_CTYPE", "/usr/lib/x86_64-linux-gnu/gconv/gconv-modules",
		"/usr/share/zoneinfo/Etc/UTC", "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libpq.so.5",
		"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"} {
		wantPresent(t, u, f)
	}
	wantFile(t, u, "/usr/bin/busybox", 0o755, 0)
	for link, target := range map[string]string{"/bin": "usr/bin", "/lib": "usr/lib", "/lib64": "usr/lib64",
		"/usr/bin/sh": "busybox", "/usr/bin/cp": "busybox"} {
		wantLink(t, u, link, target)
	}
	wantPresent(t, u, "/usr/lib64/ld-linux-x86-64.so.2") // the ELF interpreter's path
	for p := range u.files {
		if strings.Contains(p, "llvmjit") || strings.Contains(p, "/bitcode") || strings.Contains(p, "libLLVM") {
			t.Errorf("%s: LLVM JIT files must be left out", p)
			break
		}
	}
	wantDir(t, u, pgDataDir, 26)
	wantPasswd(t, u, "postgres:x:26:26:")
	wantConfig(t, u, "26", []string{"PATH=" + lib + "/bin:/usr/bin:/bin", "LANG=C.UTF-8",
		"PGDATA=/var/lib/postgresql/data/pgdata"}, nil)
	if tag := u.annotations[imagebuild.RefNameAnnotation]; !strings.HasPrefix(tag, major+".") {
		t.Errorf("tag %q, want %s.N (CNPG reads the major version from it)", tag, major)
	}
	if repo, _, _ := strings.Cut(u.annotations[containerdNameAnnotation], ":"); !strings.HasSuffix(repo, "/postgresql") {
		t.Errorf("reference %q, want repository …/postgresql for every major", u.annotations[containerdNameAnnotation])
	}
}

func checkPgbouncer(t *testing.T, u unpacked) {
	wantFile(t, u, "/usr/sbin/pgbouncer", 0o755, 0)
	wantLink(t, u, pgbouncerPath, "../sbin/pgbouncer") // what CNPG's manager executes
	for _, f := range []string{"/usr/lib64/ld-linux-x86-64.so.2", "/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/x86_64-linux-gnu/libssl.so.3", "/usr/lib/x86_64-linux-gnu/libevent-2.1.so.7",
		"/usr/lib/x86_64-linux-gnu/libcares.so.2"} {
		wantPresent(t, u, f)
	}
	for p := range u.files {
		if strings.HasPrefix(p, "/usr/share/doc/") || strings.HasPrefix(p, "/etc/init.d/") {
			t.Errorf("%s: Debian's documentation and service scripts must be left out", p)
			break
		}
	}
	wantPasswd(t, u, "pgbouncer:x:998:996:")
	wantConfig(t, u, "998:996", nil, []string{pgbouncerPath})
	if tag := u.annotations[imagebuild.RefNameAnnotation]; !strings.HasPrefix(tag, "1.24.") {
		t.Errorf("tag %q, want 1.24.x (Debian 12's 1.18 fails with CNPG 1.30)", tag)
	}
}

// TestBuiltArchives walks every archive images.json lists: the file
// $SETPOINT_NODE_IMAGES names (make test sets it), else the repository's
// bin/images/images.json.
func TestBuiltArchives(t *testing.T) {
	path := os.Getenv("SETPOINT_NODE_IMAGES")
	if path == "" {
		path = filepath.Join("../../../bin/images", ManifestName)
	}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) && os.Getenv("SETPOINT_NODE_IMAGES") == "" {
		t.Skipf("no %s: run make node-images first (or set SETPOINT_NODE_IMAGES)", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Images []Image }
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, img := range m.Images {
		names = append(names, img.Name)
		t.Run(img.Name, func(t *testing.T) {
			u := readArchive(t, img.Archive)
			checkIdentity(t, u, img)
			check, ok := structure[img.Name]
			if !ok {
				t.Fatalf("no structure check for image %s", img.Name)
			}
			check(t, u)
		})
	}
	if want := []string{"pause", "cnpg", "postgresql", "pgbouncer", "postgresql-17", "coredns", "barman-cloud", "barman-cloud-sidecar", "s3store"}; !slices.Equal(names, want) {
		t.Errorf("images.json lists %v, want %v", names, want)
	}
}

// checkIdentity: the archive names the image as images.json says, under
// the hash its file name holds.
func checkIdentity(t *testing.T, u unpacked, img Image) {
	t.Helper()
	if u.annotations[containerdNameAnnotation] != img.Reference {
		t.Errorf("containerd name %q, want %q", u.annotations[containerdNameAnnotation], img.Reference)
	}
	if _, tag, _ := strings.Cut(img.Reference, ":"); u.annotations[imagebuild.RefNameAnnotation] != tag {
		t.Errorf("ref.name %q, want the tag %q", u.annotations[imagebuild.RefNameAnnotation], tag)
	}
	if u.digest.String() != img.Digest {
		t.Errorf("manifest digest %s, images.json says %s", u.digest, img.Digest)
	}
	if filepath.Base(img.Archive) != archiveName(img.Name, img.Key) {
		t.Errorf("archive %s, want %s", filepath.Base(img.Archive), archiveName(img.Name, img.Key))
	}
}

func wantPresent(t *testing.T, u unpacked, p string) {
	t.Helper()
	if _, ok := u.files[p]; !ok {
		t.Errorf("%s missing", p)
	}
}

func wantFile(t *testing.T, u unpacked, p string, mode int64, uid int) {
	t.Helper()
	h, ok := u.files[p]
	switch {
	case !ok:
		t.Errorf("%s missing", p)
	case h.Typeflag != tar.TypeReg || h.Mode != mode || h.Uid != uid:
		t.Errorf("%s: type %c mode %o uid %d, want a file, %o, %d", p, h.Typeflag, h.Mode, h.Uid, mode, uid)
	}
}

func wantDir(t *testing.T, u unpacked, p string, uid int) {
	t.Helper()
	if h, ok := u.files[p]; !ok || h.Typeflag != tar.TypeDir || h.Uid != uid || h.Gid != uid {
		t.Errorf("%s: %v, want a directory owned by %d:%d", p, h, uid, uid)
	}
}

func wantLink(t *testing.T, u unpacked, p, target string) {
	t.Helper()
	if h, ok := u.files[p]; !ok || h.Typeflag != tar.TypeSymlink || h.Linkname != target {
		t.Errorf("%s: want a link to %s", p, target)
	}
}

func wantPasswd(t *testing.T, u unpacked, line string) {
	t.Helper()
	if !strings.Contains(string(u.data["/etc/passwd"]), "\n"+line) {
		t.Errorf("/etc/passwd %q has no line starting %q", u.data["/etc/passwd"], line)
	}
}

func wantConfig(t *testing.T, u unpacked, user string, env, entrypoint []string) {
	t.Helper()
	c := u.config.Config
	if c.User != user {
		t.Errorf("user %q, want %q", c.User, user)
	}
	for _, e := range env {
		if !slices.Contains(c.Env, e) {
			t.Errorf("env %v lacks %s", c.Env, e)
		}
	}
	if !slices.Equal(c.Entrypoint, entrypoint) {
		t.Errorf("entrypoint %q, want %q", c.Entrypoint, entrypoint)
	}
	if u.config.OS != "linux" || u.config.Architecture != "amd64" || !u.config.Created.Time.Equal(epoch) {
		t.Errorf("config %s/%s created %s, want linux/amd64 at %s", u.config.OS, u.config.Architecture, u.config.Created.Time, epoch)
	}
}
