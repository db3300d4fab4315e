package cluster

import (
	"errors"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefakecs "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

const (
	image15 = "ghcr.io/cloudnative-pg/postgresql:15.8"
	image17 = "ghcr.io/cloudnative-pg/postgresql:17.6"
)

// upgradeWorld is the API a run of upgrade passes shares: each pass is a
// new one, built from the status the last one left, as after an operator
// restart, so every test step is also a resume.
type upgradeWorld struct {
	t      *testing.T
	kube   *kubefakecs.Clientset
	pg     *fake.Clientset
	rec    *record.FakeRecorder
	pc     *pgv1.PostgresCluster
	cnpg   *cnpgv1.Cluster
	want   *desired
	facts  *facts
	status *pgv1.PostgresClusterStatus
	// databases are the PostgresDatabases by cluster, as the informer
	// indexes them.
	databases cache.Indexer
	// now is the passes' time.
	now time.Time
}

func newUpgradeWorld(t *testing.T) *upgradeWorld {
	pc := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", UID: "pc-uid", Generation: 2,
		Annotations: map[string]string{}}}
	cl := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns",
		OwnerReferences: []metav1.OwnerReference{{Kind: "PostgresCluster", Name: "shop", UID: "pc-uid", Controller: ptr.To(true)}}},
		Spec: cnpgv1.ClusterSpec{ImageName: image15},
		Status: cnpgv1.ClusterStatus{Phase: cnpgHealthy, Instances: 2, ReadyInstances: 2,
			PGDataImageInfo: &cnpgv1.ImageInfo{Image: image15, MajorVersion: 15}}}
	w := &upgradeWorld{t: t, kube: kubefakecs.NewClientset(), pg: fake.NewClientset(), rec: record.NewFakeRecorder(100),
		pc: pc, cnpg: cl, want: &desired{PostgresVersion: 17, ImageName: image17}, status: &pgv1.PostgresClusterStatus{}}
	inf := informers.NewInformers(w.kube, w.pg, "", 0)
	if err := inf.AddIndexers(); err != nil {
		t.Fatal(err)
	}
	w.now = t0
	w.databases = inf.Setpoint.Postgres().V1alpha1().PostgresDatabases().Informer().GetIndexer()
	return w
}

// pass runs one upgrade plan and keeps the status it built, as its status
// write would.
func (w *upgradeWorld) pass() *pass {
	w.t.Helper()
	p := w.passLost()
	w.status = p.status
	return p
}

// passLost runs one upgrade plan whose status write is lost (the operator
// died, or lost its lease, before it): what it did in the world stays,
// what it recorded does not.
func (w *upgradeWorld) passLost() *pass {
	w.t.Helper()
	w.pc.Status = *w.status.DeepCopy() // the stored status: the pass's snapshot
	p := &pass{cluster: w.pc, want: w.want, obs: &observation{cnpg: w.cnpg}, status: w.status.DeepCopy(),
		deps: &deps{kube: w.kube, pg: w.pg, recorder: w.rec, clock: clocktesting.NewFakeClock(w.now), databases: w.databases}}
	p.facts = onceFacts{read: true, facts: w.facts}
	if p.facts.facts == nil {
		p.facts.facts = &facts{err: errUnreachable}
	}
	if err := p.planUpgrade(w.t.Context()); err != nil {
		w.t.Fatal(err)
	}
	return p
}

var errUnreachable = errors.New("unreachable")

func (w *upgradeWorld) expect(p *pass, phase pgv1.UpgradePhase, reason string, hold string) {
	w.t.Helper()
	u := w.status.Upgrade
	if u == nil || u.Phase != phase || u.From != 15 || u.To != 17 {
		w.t.Fatalf("status.upgrade = %+v, want phase %s from 15 to 17", u, phase)
	}
	if c := apimeta.FindStatusCondition(w.status.Conditions, pgv1.ConditionMajorUpgrade); c == nil || c.Reason != reason {
		w.t.Fatalf("MajorUpgrade = %+v, want reason %s", c, reason)
	}
	got := ""
	if h := p.upgradeHold(); h != nil {
		got = h.name
	}
	if got != hold {
		w.t.Fatalf("held image %q, want %q (\"\": the spec's)", got, hold)
	}
}

// Without an object store the upgrade waits for the acknowledgement, holding
// the data's image; with it, CloudNativePG is asked to upgrade.
func TestUpgradeWithoutObjectStoreWaitsForAcknowledgement(t *testing.T) {
	w := newUpgradeWorld(t)
	w.expect(w.pass(), pgv1.UpgradeBackingUp, pgv1.ReasonUpgradeNeedsBackup, image15)
	w.expect(w.pass(), pgv1.UpgradeBackingUp, pgv1.ReasonUpgradeNeedsBackup, image15) // a restart changes nothing
	w.pc.Annotations[pgv1.UpgradeWithoutBackupAnnotation] = "16"                      // another major's
	w.expect(w.pass(), pgv1.UpgradeBackingUp, pgv1.ReasonUpgradeNeedsBackup, image15)
	w.pc.Annotations[pgv1.UpgradeWithoutBackupAnnotation] = "17"
	w.expect(w.pass(), pgv1.UpgradeUpgrading, pgv1.ReasonUpgrading, "")
}

// The backup is taken once, whatever the number of passes (or restarts),
// and the upgrade starts only once it completed.
func TestUpgradeTakesOneBackupFirst(t *testing.T) {
	w := newUpgradeWorld(t)
	w.want.ObjectStore = &pgv1.ObjectStoreSpec{DestinationPath: "s3://b/pg"}
	w.expect(w.pass(), pgv1.UpgradeBackingUp, pgv1.ReasonUpgradeBackingUp, image15)
	w.expect(w.pass(), pgv1.UpgradeBackingUp, pgv1.ReasonUpgradeBackingUp, image15)
	backups, err := w.pg.CNPGV1().Backups("ns").List(t.Context(), metav1.ListOptions{})
	if err != nil || len(backups.Items) != 1 || backups.Items[0].Name != w.status.Upgrade.Backup {
		t.Fatalf("backups %v (%v), want exactly the one status names (%q)", backups, err, w.status.Upgrade.Backup)
	}
	b := &backups.Items[0]
	b.Status.Phase = cnpgv1.BackupPhaseCompleted
	if _, err := w.pg.CNPGV1().Backups("ns").UpdateStatus(t.Context(), b, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.expect(w.pass(), pgv1.UpgradeUpgrading, pgv1.ReasonUpgrading, "")
}

// A pg_upgrade Job that failed ends the attempt: the failure is recorded
// with the target image still held, then the data's image comes back
// (CloudNativePG's rollback), and stays until a retry is asked for.
func TestFailedUpgradeRollsBackOnceRecordedAndWaitsForARetry(t *testing.T) {
	w := newUpgradeWorld(t)
	w.pc.Annotations[pgv1.UpgradeWithoutBackupAnnotation] = "17"
	w.expect(w.pass(), pgv1.UpgradeBackingUp, pgv1.ReasonUpgradeBackingUp, image15) // the attempt on record first
	w.expect(w.pass(), pgv1.UpgradeUpgrading, pgv1.ReasonUpgrading, "")
	w.cnpg.Spec.ImageName = image17
	w.cnpg.Status.Phase = "Upgrading Postgres major version"
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "shop-1-major-upgrade", Namespace: "ns", CreationTimestamp: metav1.NewTime(t0),
		Labels: map[string]string{cnpgClusterLabel: "shop", cnpgJobRoleLabel: cnpgMajorUpgradeRole}},
		Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue,
			Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit"}}}}
	if _, err := w.kube.BatchV1().Jobs("ns").Create(t.Context(), job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.expect(w.pass(), pgv1.UpgradeFailed, pgv1.ReasonUpgradeFailed, image17)
	if m := w.status.Upgrade.Message; !contains(m, "shop-1-major-upgrade", "backoff limit", pgv1.RetryUpgradeAnnotation) {
		t.Errorf("message %q does not name the Job, its failure and the retry", m)
	}
	w.expect(w.pass(), pgv1.UpgradeFailed, pgv1.ReasonUpgradeFailed, image15)
	w.cnpg.Spec.ImageName = image15 // CloudNativePG rolled back
	w.cnpg.Status.Phase = cnpgHealthy
	w.expect(w.pass(), pgv1.UpgradeFailed, pgv1.ReasonUpgradeFailed, image15)

	// The retry starts while the failed Job is still there: CloudNativePG
	// deletes it, but it is not this attempt's failure.
	w.now = t0.Add(time.Hour)
	w.pc.Annotations[pgv1.RetryUpgradeAnnotation] = "again"
	w.expect(w.pass(), pgv1.UpgradeBackingUp, pgv1.ReasonUpgradeBackingUp, image15)
	w.expect(w.pass(), pgv1.UpgradeUpgrading, pgv1.ReasonUpgrading, "")
	if w.status.Upgrade.RetryRequest != "again" {
		t.Errorf("retryRequest %q, want the annotation's value", w.status.Upgrade.RetryRequest)
	}
}

// A parameter the target major removed stops the upgrade before anything
// changes, and names itself.
func TestPreflightRefusesARemovedParameter(t *testing.T) {
	w := newUpgradeWorld(t)
	w.want.Settings.PostgreSQLConfig = map[string]string{"old_snapshot_threshold": "10min", "work_mem": "8MB"}
	w.pc.Annotations[pgv1.UpgradeWithoutBackupAnnotation] = "17"
	w.expect(w.pass(), pgv1.UpgradePreflight, pgv1.ReasonUpgradePreflightFailed, image15)
	if m := w.status.Upgrade.Message; !contains(m, "old_snapshot_threshold", "PostgreSQL 17") || contains(m, "work_mem") {
		t.Errorf("message %q, want old_snapshot_threshold named, and only it", m)
	}
	delete(w.want.Settings.PostgreSQLConfig, "old_snapshot_threshold")
	w.expect(w.pass(), pgv1.UpgradeUpgrading, pgv1.ReasonUpgrading, "")
}

// Once CloudNativePG moved the data to 17 and every instance is back, the
// upgrade waits for the databases' analysis and the version Postgres
// reports, then succeeds; a later pass changes nothing.
func TestUpgradeSucceedsOncePostgresReportsAndDatabasesAreAnalyzed(t *testing.T) {
	w := newUpgradeWorld(t)
	w.pc.Annotations[pgv1.UpgradeWithoutBackupAnnotation] = "17"
	w.expect(w.pass(), pgv1.UpgradeBackingUp, pgv1.ReasonUpgradeBackingUp, image15)
	w.expect(w.pass(), pgv1.UpgradeUpgrading, pgv1.ReasonUpgrading, "")
	w.cnpg.Spec.ImageName = image17
	w.cnpg.Status.PGDataImageInfo = &cnpgv1.ImageInfo{Image: image17, MajorVersion: 17}
	w.cnpg.Status.ReadyInstances = 1
	w.cnpg.Status.Phase = "Creating a new replica"
	w.expect(w.pass(), pgv1.UpgradeUpgrading, pgv1.ReasonUpgrading, "")
	w.cnpg.Status.ReadyInstances, w.cnpg.Status.Phase = 2, cnpgHealthy
	db := &pgv1.PostgresDatabase{ObjectMeta: metav1.ObjectMeta{Name: "orders", Namespace: "ns"},
		Spec:   pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: "shop"}},
		Status: pgv1.PostgresDatabaseStatus{Phase: pgv1.PhaseReady}}
	if err := w.databases.Add(db); err != nil {
		t.Fatal(err)
	}
	w.expect(w.pass(), pgv1.UpgradeAnalyzing, pgv1.ReasonUpgradeAnalyzing, "")
	w.facts = &facts{version: "17.6 (Debian 17.6-1)"}
	w.expect(w.pass(), pgv1.UpgradeAnalyzing, pgv1.ReasonUpgradeAnalyzing, "")
	if m := w.status.Upgrade.Message; !contains(m, "orders") {
		t.Errorf("message %q does not name the database waited for", m)
	}
	analyzed := db.DeepCopy()
	analyzed.Status.StatisticsMajor = 17
	if err := w.databases.Update(analyzed); err != nil {
		t.Fatal(err)
	}
	w.expect(w.pass(), pgv1.UpgradeSucceeded, pgv1.ReasonUpgradeSucceeded, "")
	if w.status.Upgrade.ServerVersion != "17.6 (Debian 17.6-1)" {
		t.Errorf("serverVersion %q, want what Postgres reported", w.status.Upgrade.ServerVersion)
	}
	before := w.status.DeepCopy()
	w.expect(w.pass(), pgv1.UpgradeSucceeded, pgv1.ReasonUpgradeSucceeded, "")
	if w.status.Upgrade.LastTransitionTime != before.Upgrade.LastTransitionTime || w.status.Upgrade.Message != before.Upgrade.Message {
		t.Errorf("a pass after success changed the record: %+v, was %+v", w.status.Upgrade, before.Upgrade)
	}
}

// contains: s holds every one of subs.
func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// The archive moves to a folder of its own when the upgrade asks for the
// new major (pg_upgrade's new system restarts at timeline 1), keeps it
// once the data runs that major, and moves back when a failed attempt
// rolls back.
func TestUpgradeArchivesIntoAFolderOfItsOwn(t *testing.T) {
	w := newUpgradeWorld(t)
	w.pc.Annotations[pgv1.UpgradeWithoutBackupAnnotation] = "17"
	plugin := func(name string) {
		w.cnpg.Spec.Plugins = []cnpgv1.PluginConfiguration{{Name: barmanPlugin, Parameters: map[string]string{"serverName": name}}}
	}
	plugin("shop")
	if got := archiveServerName(w.pass()); got != "shop" {
		t.Errorf("serverName %q while the attempt is being recorded, want shop", got)
	}
	if got := archiveServerName(w.pass()); got != "shop-pg17" {
		t.Errorf("serverName %q as the upgrade starts, want shop-pg17", got)
	}
	plugin("shop-pg17")
	w.cnpg.Spec.ImageName = image17
	w.cnpg.Status.PGDataImageInfo = &cnpgv1.ImageInfo{Image: image17, MajorVersion: 17}
	if got := archiveServerName(w.pass()); got != "shop-pg17" {
		t.Errorf("serverName %q on 17, want shop-pg17 kept", got)
	}

	w = newUpgradeWorld(t)
	w.status.Upgrade = &pgv1.MajorUpgradeStatus{From: 15, To: 17, Phase: pgv1.UpgradeFailed, StartTime: metav1.NewTime(t0)}
	plugin("shop-pg17")
	w.cnpg.Spec.ImageName = image17 // the failed attempt's
	if got := archiveServerName(w.pass()); got != "shop" {
		t.Errorf("serverName %q after a failed attempt, want shop again", got)
	}

	// A name that only looks like an upgrade's keeps its folder.
	w = newUpgradeWorld(t)
	w.pc.Name, w.cnpg.Name = "shop-pg18", "shop-pg18"
	w.want.PostgresVersion, w.want.ImageName = 15, image15
	plugin("shop-pg18")
	if got := archiveServerName(w.pass()); got != "shop-pg18" {
		t.Errorf("serverName %q of cluster shop-pg18 on 15, want its own name", got)
	}
}

// A failed pg_upgrade's log reads as pg_upgrade wrote it.
func TestUpgradeLogKeepsPgUpgradesWords(t *testing.T) {
	log := `{"level":"info","logger":"pg_upgrade","msg":"Your installation contains one of the reg* data types in user tables.","pipe":"stdout"}
{"level":"info","logger":"pg_upgrade","msg":"Failure, exiting","pipe":"stdout"}
Error: error while running pg_upgrade: exit status 1
`
	want := "Your installation contains one of the reg* data types in user tables. \u23ce Failure, exiting \u23ce Error: error while running pg_upgrade: exit status 1"
	if got := logText([]byte(log)); got != want {
		t.Errorf("logText:\n got %q\nwant %q", got, want)
	}
}

// An operator that dies (or loses its lease) after a pass acted and before
// its status write landed leaves the next pass the record as it stood:
// at every phase the next pass finds what the lost one did (one probe Pod,
// one backup), never asks CloudNativePG for the old image again once it
// was asked for the new one, and walks on to Succeeded. Each pass runs at
// a later time, so an attempt started again would name another backup.
func TestUpgradeResumesAfterALostStatusWriteAtEveryPhase(t *testing.T) {
	w := newUpgradeWorld(t)
	w.want.ObjectStore = &pgv1.ObjectStoreSpec{DestinationPath: "s3://b/pg"}
	db := &pgv1.PostgresDatabase{ObjectMeta: metav1.ObjectMeta{Name: "orders", Namespace: "ns"},
		Spec: pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: "shop"},
			Databases: []pgv1.DatabaseSpec{{Name: "orders", Extensions: []string{"pg_trgm"}}}},
		Status: pgv1.PostgresDatabaseStatus{Phase: pgv1.PhaseReady}}
	if err := w.databases.Add(db); err != nil {
		t.Fatal(err)
	}
	later := func() { w.now = w.now.Add(time.Minute) }
	// count fails the test unless list holds want items.
	count := func(what string, want int, list func() (runtime.Object, error)) {
		t.Helper()
		l, err := list()
		if err != nil {
			t.Fatal(err)
		}
		items, xerr := apimeta.ExtractList(l)
		if xerr != nil || len(items) != want {
			t.Fatalf("%d %s (%v), want %d", len(items), what, xerr, want)
		}
	}
	pods := func() (runtime.Object, error) {
		return w.kube.CoreV1().Pods("ns").List(t.Context(), metav1.ListOptions{})
	}
	backups := func() (runtime.Object, error) {
		return w.pg.CNPGV1().Backups("ns").List(t.Context(), metav1.ListOptions{})
	}

	// Preflight: the probe Pod is made once, whatever attempt asks.
	w.passLost()
	later()
	w.passLost()
	count("probe Pods", 1, pods)
	probe, err := w.kube.CoreV1().Pods("ns").Get(t.Context(), "shop-upgrade-probe-17", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// CloudNativePG's instances' ServiceAccount, for their pull secrets;
	// no token.
	if s := probe.Spec; s.ServiceAccountName != "shop" || s.AutomountServiceAccountToken == nil || *s.AutomountServiceAccountToken {
		t.Errorf("probe Pod runs as ServiceAccount %q with token %v, want shop's, no token", s.ServiceAccountName, s.AutomountServiceAccountToken)
	}
	probe.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "extensions",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}}}
	if _, err := w.kube.CoreV1().Pods("ns").UpdateStatus(t.Context(), probe, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	later()
	w.expect(w.pass(), pgv1.UpgradeBackingUp, pgv1.ReasonUpgradeBackingUp, image15)
	started := w.status.Upgrade.StartTime // the first attempt on record
	count("probe Pods once read", 0, pods)
	count("backups before the attempt is on record", 0, backups)

	// BackingUp: the backup is taken once, by the attempt on record.
	later()
	w.passLost()
	later()
	w.passLost()
	count("backups", 1, backups)
	// The one backup is the attempt on record's.
	b, err := w.pg.CNPGV1().Backups("ns").Get(t.Context(), upgradeBackupName("shop", w.status.Upgrade), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Status.Phase = cnpgv1.BackupPhaseCompleted
	if _, err := w.pg.CNPGV1().Backups("ns").UpdateStatus(t.Context(), b, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	// Upgrading: asked for 17 by a lost pass, then the one after asks for
	// 17 as well; the data's image is never held again.
	later()
	if p := w.passLost(); p.upgradeHold() != nil {
		t.Fatalf("the pass that starts pg_upgrade holds %+v, want the spec's image", p.upgradeHold())
	}
	w.cnpg.Spec.ImageName = image17
	w.cnpg.Status.Phase = "Upgrading Postgres major version"
	later()
	w.expect(w.pass(), pgv1.UpgradeUpgrading, pgv1.ReasonUpgrading, "")
	count("backups", 1, backups)

	// Analyzing and Succeeded.
	w.cnpg.Status.PGDataImageInfo = &cnpgv1.ImageInfo{Image: image17, MajorVersion: 17}
	w.cnpg.Status.Phase = cnpgHealthy
	w.facts = &facts{version: "17.6"}
	later()
	w.passLost()
	later()
	w.expect(w.pass(), pgv1.UpgradeAnalyzing, pgv1.ReasonUpgradeAnalyzing, "")
	analyzed := db.DeepCopy()
	analyzed.Status.StatisticsMajor = 17
	if err := w.databases.Update(analyzed); err != nil {
		t.Fatal(err)
	}
	later()
	w.passLost()
	later()
	w.expect(w.pass(), pgv1.UpgradeSucceeded, pgv1.ReasonUpgradeSucceeded, "")
	if u := w.status.Upgrade; !u.StartTime.Equal(&started) || u.Backup != b.Name {
		t.Errorf("status.upgrade %+v, want the attempt first on record (started %s) and its backup", u, started)
	}
	count("backups", 1, backups)
}

// The pass that starts an attempt acts on nothing that would outlive a
// lost status write: it neither takes the backup (whose name comes from
// the attempt's start) nor releases the data's image. However many such
// passes are lost, one backup is taken, by the attempt on record.
func TestUpgradeActsOnlyOnceTheAttemptIsOnRecord(t *testing.T) {
	w := newUpgradeWorld(t)
	w.want.ObjectStore = &pgv1.ObjectStoreSpec{DestinationPath: "s3://b/pg"}
	for range 3 {
		w.now = w.now.Add(time.Minute)
		if h := w.passLost().upgradeHold(); h == nil || h.name != image15 {
			t.Fatalf("a lost first pass holds %+v, want the data's image", h)
		}
	}
	w.expect(w.pass(), pgv1.UpgradeBackingUp, pgv1.ReasonUpgradeBackingUp, image15)
	w.expect(w.pass(), pgv1.UpgradeBackingUp, pgv1.ReasonUpgradeBackingUp, image15)
	backups, err := w.pg.CNPGV1().Backups("ns").List(t.Context(), metav1.ListOptions{})
	if err != nil || len(backups.Items) != 1 || backups.Items[0].Name != w.status.Upgrade.Backup {
		t.Fatalf("%d backups (%v), want exactly the one status names (%q)", len(backups.Items), err, w.status.Upgrade.Backup)
	}

	// Acknowledged without a backup: the hold goes only once on record.
	w = newUpgradeWorld(t)
	w.pc.Annotations[pgv1.UpgradeWithoutBackupAnnotation] = "17"
	if h := w.passLost().upgradeHold(); h == nil || h.name != image15 {
		t.Fatalf("a lost first pass holds %+v, want the data's image", h)
	}
	w.expect(w.pass(), pgv1.UpgradeBackingUp, pgv1.ReasonUpgradeBackingUp, image15)
	w.expect(w.pass(), pgv1.UpgradeUpgrading, pgv1.ReasonUpgrading, "")
}

// The pass that asked CloudNativePG for 17 lost its status write, and
// pg_upgrade ran to the end while no operator looked: the record still
// says BackingUp. That is an upgrade done, not one cancelled: it walks on
// to Analyzing.
func TestUpgradeDoneWhileItsStartWasUnrecorded(t *testing.T) {
	w := newUpgradeWorld(t)
	w.pc.Annotations[pgv1.UpgradeWithoutBackupAnnotation] = "17"
	w.expect(w.pass(), pgv1.UpgradeBackingUp, pgv1.ReasonUpgradeBackingUp, image15)
	if h := w.passLost().upgradeHold(); h != nil {
		t.Fatalf("the pass that starts pg_upgrade holds %+v, want the spec's image", h)
	}
	w.cnpg.Spec.ImageName = image17
	w.cnpg.Status.PGDataImageInfo = &cnpgv1.ImageInfo{Image: image17, MajorVersion: 17}
	w.now = w.now.Add(10 * time.Minute)
	w.expect(w.pass(), pgv1.UpgradeAnalyzing, pgv1.ReasonUpgradeAnalyzing, "")
}
