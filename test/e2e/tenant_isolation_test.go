package e2e_test

import (
	"context"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// tenantClass is a class with one object store for every namespace.
func tenantClass(t *testing.T, name string, layout pgv1.ArchiveLayout) {
	t.Helper()
	newClass(t, name, pgv1.ClusterSettings{
		Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15),
		Backup: &pgv1.BackupSpec{ObjectStore: &pgv1.ObjectStoreSpec{
			DestinationPath: "s3://tenants/" + name, CredentialsSecretName: "backup-creds", Layout: layout}},
		SuperuserAccess: ptr.To(true), // the tests write and read their rows as postgres
	})
}

// tenantWithRows is a Ready cluster in ns holding a table of n rows, with
// a completed base backup and the WAL after it archived.
func tenantWithRows(t *testing.T, ns, name, class string, n int) *pgv1.PostgresCluster {
	t.Helper()
	newCluster(t, ns, name, class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	c := kit.WaitCluster(t, ns, name, pgv1.PhaseReady, 120*time.Second)
	su := connectSuperuser(t, ns, name)
	execSQL(t, su, "CREATE TABLE secrets (id int PRIMARY KEY)")
	execSQL(t, su, "INSERT INTO secrets SELECT generate_series(1, "+strconv.Itoa(n)+")")
	kit.WaitBackupCompleted(t, ns, kit.RequestBackup(t, ns, name, "tenant-"+name), 2*time.Minute)
	wal := queryString(t, su, "SELECT pg_walfile_name(pg_switch_wal())")
	folder := storeFolder(c.Status.BackupStatus.ArchivePath)
	kit.Until(t, 60*time.Second, "WAL "+wal+" archived in "+folder, func(context.Context) (bool, error) {
		_, err := os.Stat(filepath.Join(folder, "wals", wal))
		return err == nil, nil
	})
	return c
}

// getCNPGCluster and getObjectStore read what the operator wrote.
func getCNPGCluster(t *testing.T, ns, name string) *cnpgv1.Cluster {
	t.Helper()
	c, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("CNPG Cluster %s/%s: %v", ns, name, err)
	}
	return c
}

func getObjectStore(t *testing.T, ns, name string) *barmanv1.ObjectStore {
	t.Helper()
	s, err := pg.BarmanCloudV1().ObjectStores(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("ObjectStore %s/%s: %v", ns, name, err)
	}
	return s
}

// Two namespaces on one class with the default (Namespaced) layout: each
// cluster archives in a folder of its own namespace, so a cluster of the
// same name in the other namespace archives beside it, not into it, and a
// restore in the other namespace cannot read the first one's backups.
func TestNamespacesDoNotShareArchives(t *testing.T) {
	a, b := kit.Namespace(t), kit.Namespace(t)
	startOperator(t, "tenants", "--leader-elect=false", "--postgres-host-map", hostMap)
	class := "tenants-" + a
	tenantClass(t, class, "")

	shopA := tenantWithRows(t, a, "shop", class, 42)
	if got, want := shopA.Status.BackupStatus.ArchivePath, "s3://tenants/"+class+"/"+a+"/shop"; got != want {
		t.Fatalf("archivePath in %s = %q, want %q", a, got, want)
	}

	// B restores "shop": its own namespace has no such cluster, so there
	// is nothing to restore, and A's rows are never read.
	stolen := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "stolen", Namespace: b},
		Spec: pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete,
			Restore: &pgv1.RestoreSpec{Source: "shop"}},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(b).Create(t.Context(), stolen, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	failed := waitReason(t, b, "stolen", pgv1.ReasonRestoreFailed, 120*time.Second)
	if failed.Status.Phase != pgv1.PhaseFailed || failed.Status.RestoredFrom != nil {
		t.Fatalf("restore across namespaces: phase %s, restoredFrom %+v", failed.Status.Phase, failed.Status.RestoredFrom)
	}
	// CNPG's reason is in the full-recovery Job's log: B's folder of that
	// name holds nothing.
	if log := sim.RecoveryLog(b, "stolen"); !strings.Contains(log, "no target backup found") || !strings.Contains(log, "0 backup(s)") {
		t.Fatalf("recovery log %q, want no backup found", log)
	}
	cnpg := getCNPGCluster(t, b, "stolen")
	if len(cnpg.Spec.ExternalClusters) != 1 || cnpg.Spec.ExternalClusters[0].PluginConfiguration.Parameters["barmanObjectName"] != "stolen-backup" {
		t.Fatalf("externalClusters = %+v", cnpg.Spec.ExternalClusters)
	}
	if got := getObjectStore(t, b, "stolen-backup").Spec.Configuration.DestinationPath; got != "s3://tenants/"+class+"/"+b {
		t.Fatalf("B's ObjectStore destinationPath = %q", got)
	}

	// B's own "shop" archives beside A's, in B's folder; A's folder gets
	// none of B's WAL.
	shopB := tenantWithRows(t, b, "shop", class, 7)
	if got, want := shopB.Status.BackupStatus.ArchivePath, "s3://tenants/"+class+"/"+b+"/shop"; got != want {
		t.Fatalf("archivePath in %s = %q, want %q", b, got, want)
	}
	// Every WAL segment in each folder is its own cluster's (the system
	// identifier in the segment's first page header).
	sysids := map[string]bool{}
	for _, c := range []*pgv1.PostgresCluster{shopA, shopB} {
		sysid := queryString(t, connectSuperuser(t, c.Namespace, c.Name), "SELECT system_identifier::text FROM pg_control_system()")
		assertWALOf(t, storeFolder(c.Status.BackupStatus.ArchivePath), sysid)
		sysids[sysid] = true
	}
	if len(sysids) != 2 {
		t.Fatalf("the two clusters run one Postgres system (%v): the WAL check proves nothing", sysids)
	}
	// B's restore of its own "shop" reads B's rows, not A's.
	mine := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: b},
		Spec: pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete,
			Restore: &pgv1.RestoreSpec{Source: "shop"}},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(b).Create(t.Context(), mine, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.WaitCluster(t, b, "mine", pgv1.PhaseReady, 180*time.Second)
	if n := queryString(t, connectSuperuser(t, b, "mine"), "SELECT count(*) FROM secrets"); n != "7" {
		t.Fatalf("B's restore of its own shop holds %s rows, want B's 7", n)
	}
}

// A class that shares its store across namespaces says so (layout
// Shared): a restore may then read another namespace's cluster by name,
// and of two clusters with one name the second is refused before it
// writes anything, naming the first.
func TestSharedLayoutIsExplicit(t *testing.T) {
	a, b := kit.Namespace(t), kit.Namespace(t)
	startOperator(t, "shared", "--leader-elect=false", "--postgres-host-map", hostMap)
	class := "shared-" + a
	tenantClass(t, class, pgv1.ArchiveLayoutShared)

	first := tenantWithRows(t, a, "db1", class, 5)
	if got, want := first.Status.BackupStatus.ArchivePath, "s3://tenants/"+class+"/db1"; got != want {
		t.Fatalf("archivePath = %q, want %q", got, want)
	}
	newCluster(t, b, "db1", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	refused := waitReason(t, b, "db1", "ArchiveConflict", 60*time.Second)
	if msg := readyMessage(refused); refused.Status.Phase != pgv1.PhaseFailed ||
		!strings.Contains(msg, "PostgresCluster "+a+"/db1") || !strings.Contains(msg, "s3://tenants/"+class+"/db1") {
		t.Fatalf("phase %s, message %q", refused.Status.Phase, msg)
	}
	for _, get := range []func() error{
		func() error {
			_, err := pg.CNPGV1().Clusters(b).Get(t.Context(), "db1", metav1.GetOptions{})
			return err
		},
		func() error {
			_, err := pg.BarmanCloudV1().ObjectStores(b).Get(t.Context(), "db1-backup", metav1.GetOptions{})
			return err
		},
	} {
		if err := get(); err == nil {
			t.Fatal("the refused cluster wrote a CNPG Cluster or an ObjectStore")
		}
	}

	copyOf := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "copy", Namespace: b},
		Spec: pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete,
			Restore: &pgv1.RestoreSpec{Source: "db1"}},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(b).Create(t.Context(), copyOf, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.WaitCluster(t, b, "copy", pgv1.PhaseReady, 180*time.Second)
	if n := queryString(t, connectSuperuser(t, b, "copy"), "SELECT count(*) FROM secrets"); n != "5" {
		t.Fatalf("restore through the Shared layout holds %s rows, want 5", n)
	}
}

// The API server refuses the layout on a PostgresCluster (only a class
// chooses it) and a destinationPath with . or .. segments.
func TestArchiveLayoutValidation(t *testing.T) {
	ns := kit.Namespace(t)
	for _, tc := range []struct {
		name string
		os   pgv1.ObjectStoreSpec
		want string
	}{
		{"layout", pgv1.ObjectStoreSpec{DestinationPath: "s3://b/pg", CredentialsSecretName: "c", Layout: pgv1.ArchiveLayoutShared},
			"backup.objectStore.layout can only be set in a PostgresClusterClass"},
		{"dotdot", pgv1.ObjectStoreSpec{DestinationPath: "s3://b/pg/../other", CredentialsSecretName: "c"},
			"destinationPath must not contain . or .. segments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &pgv1.PostgresCluster{
				ObjectMeta: metav1.ObjectMeta{Name: "v-" + tc.name, Namespace: ns},
				Spec: pgv1.PostgresClusterSpec{Class: "any", ClusterSettings: pgv1.ClusterSettings{
					Backup: &pgv1.BackupSpec{ObjectStore: &tc.os}}},
			}
			_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("create: %v, want %q", err, tc.want)
			}
		})
	}
	r := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "v-store", Namespace: ns},
		Spec:       pgv1.PostgresClusterSpec{Class: "any", Restore: &pgv1.RestoreSpec{Source: "shop", ObjectStoreName: "a b/c"}},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), r, metav1.CreateOptions{}); err == nil ||
		!strings.Contains(err.Error(), "spec.restore.objectStoreName") {
		t.Fatalf("restore.objectStoreName %q: %v", "a b/c", err)
	}
}

// walSegment is the name of a WAL segment file (no .history or .backup).
var walSegment = regexp.MustCompile(`^[0-9A-F]{24}$`)

// assertWALOf checks that folder holds archived WAL and that every
// segment in it belongs to the Postgres system sysid: its first page's
// long header carries xlp_sysid at byte 24, little-endian.
func assertWALOf(t *testing.T, folder, sysid string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(folder, "wals"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !walSegment.MatchString(e.Name()) {
			continue
		}
		f, err := os.Open(filepath.Join(folder, "wals", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 32)
		_, err = io.ReadFull(f, head)
		f.Close()
		if err != nil {
			t.Fatalf("read %s: %v", e.Name(), err)
		}
		if got := strconv.FormatUint(binary.LittleEndian.Uint64(head[24:]), 10); got != sysid {
			t.Errorf("%s/wals/%s is of system %s, want %s", folder, e.Name(), got, sysid)
		}
		n++
	}
	if n == 0 {
		t.Fatalf("no WAL segment in %s", folder)
	}
}
