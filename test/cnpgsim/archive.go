package cnpgsim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// barmanPlugin is the barman-cloud CNPG-I plugin's name.
const barmanPlugin = "barman-cloud.cloudnative-pg.io"

// archiveConfFile holds archive_command; restore_command and the recovery
// target go in recoveryConfFile. Both are included by the base settings.
const (
	archiveConfFile  = "cnpgsim-archive.conf"
	recoveryConfFile = "cnpgsim-recovery.conf"
)

// errNoObjectStore: the plugin names an ObjectStore that does not exist
// (or the plugin's CRD is not installed). Archiving waits for it.
var errNoObjectStore = errors.New("ObjectStore not found")

// archive is one server's folder in the simulated object store, what
// barman-cloud writes under <destinationPath>/<serverName>: archived WAL in
// wals/ (flat, one file per segment or history file) and base backups in
// base/<backupID>/ (data/ plus backup.json).
type archive struct {
	objectStore     string
	destinationPath string
	serverName      string
	dir             string
	// config is the ObjectStore's configuration as read, for the
	// credentials the plugin would use (store_credentials.go).
	config barmanv1.BarmanObjectStoreConfiguration
	// stateDir is the archiving server's own directory, where
	// archive_command reports each outcome and finds the store's refusal
	// (archive_outcome.go); set for the archiving server only.
	stateDir string
}

func (a *archive) walDir() string  { return filepath.Join(a.dir, "wals") }
func (a *archive) baseDir() string { return filepath.Join(a.dir, "base") }

// unsafePathChars are replaced in folder names: the folder path ends up in
// archive_command, which must need no quoting beyond double quotes.
var unsafePathChars = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// archiveDir maps an ObjectStore's destinationPath and a serverName to a
// folder under root/objectstore: the scheme and each path segment become
// one folder each ("s3://backups/pg" → objectstore/s3/backups/pg/<server>),
// so two ObjectStores with the same destinationPath share a folder, as they
// would share a bucket prefix.
func archiveDir(root, destinationPath, serverName string) string {
	parts := []string{root, "objectstore"}
	scheme, rest, found := strings.Cut(destinationPath, "://")
	if !found {
		scheme, rest = "local", destinationPath
	}
	for _, seg := range append([]string{scheme}, strings.Split(rest, "/")...) {
		if seg == "" || seg == "." || seg == ".." {
			continue
		}
		parts = append(parts, unsafePathChars.ReplaceAllString(seg, "_"))
	}
	server := unsafePathChars.ReplaceAllString(serverName, "_")
	if server == "" || server == "." || server == ".." {
		server = "_"
	}
	return filepath.Join(append(parts, server)...)
}

// walArchiver returns the Cluster's barman-cloud plugin entry when it is
// the WAL archiver, as CNPG decides: enabled unless enabled is false.
func walArchiver(c *cnpgv1.Cluster) *cnpgv1.PluginConfiguration {
	for i := range c.Spec.Plugins {
		p := &c.Spec.Plugins[i]
		if p.Name == barmanPlugin && p.IsWALArchiver != nil && *p.IsWALArchiver && (p.Enabled == nil || *p.Enabled) {
			return p
		}
	}
	return nil
}

// resolveArchive finds the folder a barman-cloud plugin configuration
// points at: the ObjectStore barmanObjectName in namespace, and serverName
// (default defaultServer, as the plugin defaults to the cluster's name).
// The ObjectStore is read live: its CRD may be installed after we start.
func (s *Simulator) resolveArchive(ctx context.Context, namespace, defaultServer string, pc *cnpgv1.PluginConfiguration) (*archive, error) {
	name := pc.Parameters["barmanObjectName"]
	if name == "" {
		return nil, fmt.Errorf("plugin %s: parameter barmanObjectName is required", barmanPlugin)
	}
	server := pc.Parameters["serverName"]
	if server == "" {
		server = defaultServer
	}
	store, err := s.cnpg.BarmanCloudV1().ObjectStores(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("%w: %s/%s", errNoObjectStore, namespace, name)
	}
	if err != nil {
		return nil, fmt.Errorf("get ObjectStore %s/%s: %w", namespace, name, err)
	}
	dest := store.Spec.Configuration.DestinationPath
	return &archive{objectStore: name, destinationPath: dest, serverName: server, dir: archiveDir(s.Dir(), dest, server),
		config: *store.Spec.Configuration.DeepCopy()}, nil
}

// ensure creates the folder: traversable by everyone up to it, the folder
// itself and its wals/ and base/ owned by the postgres OS user, who runs
// archive_command and pg_basebackup.
func (a *archive) ensure(owner *osUser) error {
	if err := os.MkdirAll(filepath.Dir(a.dir), 0o711); err != nil {
		return fmt.Errorf("create object store folder: %w", err)
	}
	for _, d := range []string{a.dir, a.walDir(), a.baseDir()} {
		if err := os.Mkdir(d, 0o700); err != nil && !os.IsExist(err) {
			return fmt.Errorf("create object store folder: %w", err)
		}
		if err := owner.chown(d); err != nil {
			return err
		}
	}
	return nil
}

// emptyArchiveCheck, in a server's data directory, marks a server that has
// archived nothing yet since initdb or recovery. Its first archive_command
// refuses a wals/ folder that already holds files, as CNPG does with
// barman-cloud-check-wal-archive before a new cluster's first WAL: two
// servers' histories must not mix in one folder. The command runs in the
// data directory and removes the mark once it has passed.
const emptyArchiveCheck = "cnpgsim-check-empty-archive"

// archiveScriptFile, in the archiving server's own directory, holds
// what archive_command runs (archiveScript): the command itself only
// names it, since Postgres truncates the expanded command at 1023 bytes.
const archiveScriptFile = "archive.sh"

// archiveCommand runs the archive script on a finished WAL file.
func (a *archive) archiveCommand() string {
	return fmt.Sprintf(`/bin/sh "%s" "%%p" "%%f"`, filepath.Join(a.stateDir, archiveScriptFile))
}

// archiveScript copies a finished WAL file ($1, named $2) into wals/
// atomically. A file already there with the same content succeeds
// (Postgres retries after a crash), a different one fails, as
// barman-cloud-wal-archive refuses to overwrite. A new server's first file
// goes only into an empty folder (emptyArchiveCheck; the script runs in
// the data directory). While the store refuses (a refusal file in the
// server's directory, written by the stand-in: archive_outcome.go) it
// fails with the refusal's message, as the plugin does. Each run leaves
// its outcome ("ok" or the message) in the server's directory, where the
// stand-in reads it for ContinuousArchiving, as CNPG's wal-archive reports
// each outcome to its instance manager.
func (a *archive) archiveScript() string {
	return fmt.Sprintf(`# Written by cnpgsim: archive_command of server %[4]s.
d="%[1]s"; o="%[2]s/%[5]s"; r="%[2]s/%[6]s"; p="$1"; f="$2"
if test -f "$r"; then tee "$o" <"$r" >&2; exit 1; fi
if test -f "$d/$f"; then
	cmp -s "$p" "$d/$f" || { echo "WAL file $f differs from the archived one" | tee "$o" >&2; exit 1; }
else
	if test -f %[3]s; then
		if test -n "$(ls -A "$d")"; then echo "WAL archive check failed for server %[4]s: Expected empty archive" | tee "$o" >&2; exit 1; fi
		rm -f %[3]s
	fi
	cp "$p" "$d/$f.part" && mv "$d/$f.part" "$d/$f" || { echo "cannot copy WAL file $f into the object store" | tee "$o" >&2; exit 1; }
fi
echo ok >"$o"
`, a.walDir(), a.stateDir, emptyArchiveCheck, a.serverName, archiveOutcomeFile, archiveRefusalFile)
}

// writeArchiveScript puts a's script in place for its server.
func (a *archive) writeArchiveScript(owner *osUser) error {
	path := filepath.Join(a.stateDir, archiveScriptFile)
	if old, err := os.ReadFile(path); err == nil && string(old) == a.archiveScript() {
		return nil
	}
	return owner.writeFile(path, []byte(a.archiveScript()))
}

// restoreCommand fetches one archived file; a missing one fails, which
// Postgres takes as the end of the archive.
func (a *archive) restoreCommand() string {
	return fmt.Sprintf(`cp "%s/%%f" "%%p"`, a.walDir())
}

// confString quotes a value for postgresql.conf.
func confString(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// archiveConf is the archive settings for the server whose directory is
// stateDir: archive_mode is always on (as CNPG sets it); without an
// archiver the command succeeds without copying and reports it (CNPG's
// wal-archive does the same, and sets ContinuousArchiving True), and while
// the archiver's ObjectStore is missing it is empty, so Postgres keeps the
// WAL until it can be archived.
func archiveConf(a *archive, archiverMissing bool, stateDir string) string {
	cmd := fmt.Sprintf(`echo ok >"%s"`, filepath.Join(stateDir, archiveOutcomeFile))
	switch {
	case a != nil:
		cmd = a.archiveCommand()
	case archiverMissing:
		cmd = ""
	}
	return "# Written by cnpgsim.\narchive_command = " + confString(cmd) + "\n"
}

// applyArchive points the server's archive_command at the Cluster's
// object-store folder, reloading when it changed. It returns a requeue
// delay while the ObjectStore is missing. Shared servers do not archive:
// one server's WAL holds every Cluster's changes.
func (r *clusterRun) applyArchive(ctx context.Context) (retry bool, err error) {
	if r.inst.backend.shared {
		return false, nil
	}
	a, missing, err := r.archive(ctx)
	if err != nil {
		return false, err
	}
	srv := r.inst.backend.srv
	if a != nil {
		a.stateDir = srv.dir
		if err := a.writeArchiveScript(r.s.owner); err != nil {
			return false, err
		}
	}
	// The archiving loop follows the store's credentials and the
	// command's outcomes from here.
	r.inst.archiving.Store(a)
	r.s.archiveLoop.add(r.inst.key)
	changed, err := srv.writeIfChanged(archiveConfFile, []byte(archiveConf(a, missing, srv.dir)))
	if err != nil {
		return false, err
	}
	if changed && srv.running() {
		if err := srv.reload(ctx); err != nil {
			return false, err
		}
	}
	return missing, nil
}

// archive resolves (and creates) the Cluster's archive folder; missing
// says the plugin is configured but its ObjectStore does not exist yet.
func (r *clusterRun) archive(ctx context.Context) (a *archive, missing bool, err error) {
	pc := walArchiver(r.cluster)
	if pc == nil {
		return nil, false, nil
	}
	a, err = r.s.resolveArchive(ctx, r.cluster.Namespace, r.cluster.Name, pc)
	if errors.Is(err, errNoObjectStore) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return a, false, a.ensure(r.s.owner)
}
