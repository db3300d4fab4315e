package cnpgsim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// PhaseUnrecoverable is where a Cluster whose recovery cannot succeed
// stops (CNPG's full-recovery Job fails and the Cluster waits for a
// person).
const PhaseUnrecoverable = "Cluster is unrecoverable and needs manual intervention"

// PhaseFailurePlugin is CNPG's phase when a plugin call fails, such as the
// barman-cloud hook on the recovery Job when its ObjectStore is missing.
const PhaseFailurePlugin = "Cluster cannot proceed to reconciliation due to an error while interacting with plugins"

// promoteTimeout bounds WAL replay up to the target and the promotion.
const promoteTimeout = 5 * time.Minute

// errRecovery is a recovery that cannot succeed as specified: CNPG's
// full-recovery Job fails (the Cluster's status names the Job, its log
// says why: RecoveryLog) and it is not retried.
type errRecovery struct{ msg string }

func (e *errRecovery) Error() string { return e.msg }

func recoveryFailed(format string, args ...any) error {
	return &errRecovery{msg: fmt.Sprintf(format, args...)}
}

// recoveryTarget reads bootstrap.recovery; nil when the Cluster starts
// with initdb.
func recoveryTarget(c *cnpgv1.Cluster) *cnpgv1.BootstrapRecovery {
	if c.Spec.Bootstrap == nil {
		return nil
	}
	return c.Spec.Bootstrap.Recovery
}

// restore fills the empty data directory of a Cluster bootstrapped by
// recovery: the newest base backup of the source that ended before the
// target, recovery.signal, restore_command reading the source's archived
// WAL, the target and promotion at its end. The server is started by
// converge; awaitPromotion waits for the replay to end.
func (r *clusterRun) restore(ctx context.Context, rec *cnpgv1.BootstrapRecovery, src *archive) error {
	target, err := parseTargetTime(rec)
	if err != nil {
		return err
	}
	list, err := src.backups()
	if err != nil {
		return err
	}
	backup := chooseBackup(list, target)
	if backup == nil {
		return recoveryFailed("Error while restoring a backup: no target backup found (server %q in ObjectStore %q has %d backup(s)%s)",
			src.serverName, src.objectStore, len(list), firstPointNote(list))
	}
	srv := r.inst.backend.srv
	if err := r.s.copyAsOwner(ctx, filepath.Join(src.backupDir(backup.BackupID), "data"), srv.dataDir()); err != nil {
		return err
	}
	conf := "# Written by cnpgsim for bootstrap.recovery.\n" +
		"restore_command = " + confString(src.restoreCommand()) + "\n" +
		"recovery_target_action = 'promote'\nrecovery_target_timeline = 'latest'\n"
	if target != nil {
		conf += "recovery_target_time = " + confString(target.UTC().Format("2006-01-02 15:04:05.999999-07:00")) + "\n"
	}
	for name, data := range map[string]string{recoveryConfFile: conf, "recovery.signal": "", emptyArchiveCheck: ""} {
		if err := srv.owner.writeFile(filepath.Join(srv.dataDir(), name), []byte(data)); err != nil {
			return err
		}
	}
	klog.FromContext(ctx).Info("Restoring base backup", "cluster", klog.KObj(r.cluster), "backup", backup.BackupID,
		"server", src.serverName, "targetTime", rec.RecoveryTarget)
	return nil
}

// recoverySource resolves bootstrap.recovery.source to its externalClusters
// entry and that entry's barman-cloud folder.
func (r *clusterRun) recoverySource(ctx context.Context, rec *cnpgv1.BootstrapRecovery) (*archive, error) {
	var ext *cnpgv1.ExternalCluster
	for i := range r.cluster.Spec.ExternalClusters {
		if r.cluster.Spec.ExternalClusters[i].Name == rec.Source {
			ext = &r.cluster.Spec.ExternalClusters[i]
		}
	}
	if ext == nil {
		return nil, recoveryFailed("bootstrap.recovery.source %q is not in externalClusters", rec.Source)
	}
	if ext.PluginConfiguration == nil || ext.PluginConfiguration.Name != barmanPlugin {
		return nil, recoveryFailed("external cluster %q: cnpgsim recovers only through the %s plugin", ext.Name, barmanPlugin)
	}
	a, err := r.s.resolveArchive(ctx, r.cluster.Namespace, ext.Name, ext.PluginConfiguration)
	if errors.Is(err, errNoObjectStore) {
		// The plugin's hook on the recovery Job reads the ObjectStore: CNPG
		// cannot create the Job, and says so (recovery_status.go).
		return nil, &errPluginHook{objectStore: ext.PluginConfiguration.Parameters["barmanObjectName"]}
	}
	return a, err
}

// parseTargetTime accepts what CNPG accepts: RFC 3339 or a PostgreSQL
// timestamp.
func parseTargetTime(rec *cnpgv1.BootstrapRecovery) (*time.Time, error) {
	if rec.RecoveryTarget == nil || rec.RecoveryTarget.TargetTime == "" {
		return nil, nil
	}
	v := rec.RecoveryTarget.TargetTime
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999Z07", "2006-01-02 15:04:05.999999Z07:00", "2006-01-02 15:04:05.999999"} {
		if t, err := time.Parse(layout, v); err == nil {
			return &t, nil
		}
	}
	return nil, recoveryFailed("recoveryTarget.targetTime %q is not an RFC 3339 or PostgreSQL timestamp", v)
}

// chooseBackup is barman's choice: the newest backup that ended before
// the target (the newest of all without one).
func chooseBackup(list []*backupInfo, target *time.Time) *backupInfo {
	var chosen *backupInfo
	for _, b := range list {
		if target == nil || !b.StoppedAt.After(*target) {
			chosen = b
		}
	}
	return chosen
}

func firstPointNote(list []*backupInfo) string {
	if len(list) == 0 {
		return ""
	}
	return ", the first recoverability point is " + list[0].StoppedAt.Format(time.RFC3339)
}

// copyAsOwner copies a directory tree as the postgres OS user, keeping
// modes (a data directory must stay 0700).
func (s *Simulator) copyAsOwner(ctx context.Context, from, to string) error {
	ctx, cancel := context.WithTimeout(ctx, baseBackupTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "cp", "-a", from, to)
	cmd.SysProcAttr = s.owner.procAttr()
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C"}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = os.RemoveAll(to)
		return fmt.Errorf("copy base backup: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// awaitPromotion waits until the restored server has replayed WAL to its
// target and promoted. A server that exits meanwhile (target not reached,
// WAL missing) fails the recovery with Postgres's own FATAL message.
func (r *clusterRun) awaitPromotion(ctx context.Context) error {
	srv := r.inst.backend.srv
	deadline := time.Now().Add(promoteTimeout)
	for {
		if !srv.running() {
			return recoveryFailed("PostgreSQL stopped during recovery: %s", srv.lastFatal())
		}
		var inRecovery bool
		err := srv.withConn(ctx, "postgres", func(ctx context.Context, conn *pgx.Conn) error {
			return conn.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&inRecovery)
		})
		if err == nil && !inRecovery {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("recovery did not end within %s (last error: %v)", promoteTimeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// lastFatal is the last FATAL line of the server log, the reason a
// recovery stopped.
func (s *server) lastFatal() string {
	data, err := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
	if err != nil {
		return "see the server log"
	}
	lines := strings.Split(string(data), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if _, msg, ok := strings.Cut(lines[i], "FATAL:"); ok && !connectionRefusal(msg) {
			return strings.TrimSpace(msg)
		}
	}
	return "see " + filepath.Join(s.dir, "postgres.log")
}

// connectionRefusal: msg is Postgres turning a client away while it is
// not open for connections, logged as FATAL by that client's backend. It
// is never why the server stopped, and a check that connects during
// recovery (the stand-in's own, under load) may log one after the FATAL
// that ended recovery.
func connectionRefusal(msg string) bool {
	msg = strings.TrimSpace(msg)
	for _, refusal := range []string{
		"the database system is in recovery mode",
		"the database system is starting up",
		"the database system is shutting down",
		"the database system is not yet accepting connections",
		"the database system is not accepting connections",
	} {
		if strings.HasPrefix(msg, refusal) {
			return true
		}
	}
	return false
}

// archiveRetry is how often a Cluster looks again for the ObjectStore its
// archiver names (ObjectStores are not watched: their CRD is optional).
const archiveRetry = 5 * time.Second

func (r *clusterRun) archiveStep(ctx context.Context) (time.Duration, error) {
	missing, err := r.applyArchive(ctx)
	if missing {
		return archiveRetry, err
	}
	return 0, err
}
