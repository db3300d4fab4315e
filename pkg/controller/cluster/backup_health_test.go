package cluster

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// CNPG's conditions and the plugin's window, worded as CNPG 1.30 and the
// barman-cloud plugin v0.14 write them.
const missingKey = "rpc error: code = Unknown desc = missing key ACCESS_KEY_ID, inside secret backup-creds"

func archiving(ok bool, msg string) *metav1.Condition {
	if ok {
		return &metav1.Condition{Type: cnpgContinuousArchiving, Status: metav1.ConditionTrue,
			Reason: "ContinuousArchivingSuccess", Message: "Continuous archiving is working"}
	}
	return &metav1.Condition{Type: cnpgContinuousArchiving, Status: metav1.ConditionFalse, Reason: "ContinuousArchivingFailing", Message: msg}
}

func lastBackup(status metav1.ConditionStatus, reason, msg string) *metav1.Condition {
	return &metav1.Condition{Type: cnpgLastBackupSucceeded, Status: status, Reason: reason, Message: msg}
}

func at(d time.Duration) *metav1.Time { t := metav1.NewTime(t0.Add(d)); return &t }

func TestJudgeBackups(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		in      backupInputs
		status  metav1.ConditionStatus
		reason  string
		message string // a part of the message
		ok      *bool
	}{
		{name: "nothing archived yet", status: metav1.ConditionUnknown, reason: pgv1.ReasonArchivingPending},
		{name: "archiving works, no backup yet, no schedule",
			in:     backupInputs{archiving: archiving(true, "")},
			status: metav1.ConditionTrue, reason: pgv1.ReasonBackupsHealthy, ok: new(true)},
		{name: "archiving fails: CNPG's message quoted",
			in:     backupInputs{archiving: archiving(false, missingKey)},
			status: metav1.ConditionFalse, reason: pgv1.ReasonArchivingFailing, message: missingKey, ok: new(false)},
		{name: "archiving failing outranks a failed backup",
			in: backupInputs{archiving: archiving(false, missingKey),
				lastBackup: lastBackup(metav1.ConditionFalse, cnpgLastBackupFailed, "backup failed")},
			status: metav1.ConditionFalse, reason: pgv1.ReasonArchivingFailing, message: missingKey, ok: new(false)},
		{name: "CNPG's LastBackupSucceeded False (LastBackupFailed)",
			in: backupInputs{archiving: archiving(true, ""),
				lastBackup: lastBackup(metav1.ConditionFalse, cnpgLastBackupFailed, missingKey)},
			status: metav1.ConditionFalse, reason: pgv1.ReasonLastBackupFailed, message: missingKey, ok: new(true)},
		{name: "a backup starting is no failure",
			in: backupInputs{archiving: archiving(true, ""),
				lastBackup: lastBackup(metav1.ConditionFalse, "BackupStarted", "New Backup starting up")},
			status: metav1.ConditionTrue, reason: pgv1.ReasonBackupsHealthy, ok: new(true)},
		{name: "the plugin's window: a failure after the last success",
			in: backupInputs{archiving: archiving(true, ""),
				window: &barmanv1.RecoveryWindow{LastSuccessfulBackupTime: at(-2 * time.Hour), LastFailedBackupTime: at(-time.Hour)}},
			status: metav1.ConditionFalse, reason: pgv1.ReasonLastBackupFailed, message: "failed backup at 2026-11-30T11:00:00Z", ok: new(true)},
		{name: "the plugin's window: a failure before the last success is over",
			in: backupInputs{archiving: archiving(true, ""), lastBackup: lastBackup(metav1.ConditionTrue, "LastBackupSucceeded", "Backup was successful"),
				window: &barmanv1.RecoveryWindow{LastSuccessfulBackupTime: at(-time.Hour), LastFailedBackupTime: at(-2 * time.Hour)}},
			status: metav1.ConditionTrue, reason: pgv1.ReasonBackupsHealthy, ok: new(true)},
		{name: "the plugin's window: failures only",
			in:     backupInputs{archiving: archiving(true, ""), window: &barmanv1.RecoveryWindow{LastFailedBackupTime: at(-time.Hour)}},
			status: metav1.ConditionFalse, reason: pgv1.ReasonLastBackupFailed, message: "after the last successful one (none)", ok: new(true)},
		{name: "a failed backup outranks an unknown archiving",
			in:     backupInputs{lastBackup: lastBackup(metav1.ConditionFalse, cnpgLastBackupFailed, "boom")},
			status: metav1.ConditionFalse, reason: pgv1.ReasonLastBackupFailed, message: "boom"},
		{name: "hourly, last success 50 minutes ago: in time",
			in: backupInputs{archiving: archiving(true, ""), schedule: "0 * * * *",
				window: &barmanv1.RecoveryWindow{LastSuccessfulBackupTime: at(-50 * time.Minute)}},
			status: metav1.ConditionTrue, reason: pgv1.ReasonBackupsHealthy, ok: new(true)},
		{name: "hourly, last success 2h10m ago: the 10:00 firing is more than its slack (an hour) behind",
			in: backupInputs{archiving: archiving(true, ""), schedule: "0 * * * *",
				window: &barmanv1.RecoveryWindow{LastSuccessfulBackupTime: at(-130 * time.Minute)}},
			status: metav1.ConditionFalse, reason: pgv1.ReasonBackupOverdue, message: `the schedule "0 * * * *" fired at 2026-11-30T10:00:00Z`, ok: new(true)},
		{name: "a failed backup outranks overdue",
			in: backupInputs{archiving: archiving(true, ""), schedule: "0 * * * *",
				lastBackup: lastBackup(metav1.ConditionFalse, cnpgLastBackupFailed, "boom"),
				window:     &barmanv1.RecoveryWindow{LastSuccessfulBackupTime: at(-5 * time.Hour)}},
			status: metav1.ConditionFalse, reason: pgv1.ReasonLastBackupFailed, ok: new(true)},
		{name: "no backup yet: measured from the ScheduledBackup's creation",
			in:     backupInputs{archiving: archiving(true, ""), schedule: "*/10 * * * *", scheduledSince: at(-40 * time.Minute)},
			status: metav1.ConditionFalse, reason: pgv1.ReasonBackupOverdue, message: "since the schedule was set up", ok: new(true)},
		{name: "weekdays only: not overdue on a Sunday after Friday's backup",
			// t0 is Monday 2026-11-30 12:00; Friday's backup ended at 02:10,
			// and the next firing, Monday 02:00, is 10 hours ago: overdue.
			// Seen from Sunday noon instead, Monday's firing is ahead.
			in: backupInputs{archiving: archiving(true, ""), schedule: "0 2 * * 1-5",
				window: &barmanv1.RecoveryWindow{LastSuccessfulBackupTime: at(-(3*24*time.Hour + 9*time.Hour + 50*time.Minute))}},
			status: metav1.ConditionFalse, reason: pgv1.ReasonBackupOverdue, ok: new(true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeBackups(tc.in, t0)
			if v.status != tc.status || v.reason != tc.reason || !strings.Contains(v.message, tc.message) {
				t.Errorf("got %s %s %q; want %s %s containing %q", v.status, v.reason, v.message, tc.status, tc.reason, tc.message)
			}
			if (v.archivingOK == nil) != (tc.ok == nil) || (v.archivingOK != nil && *v.archivingOK != *tc.ok) {
				t.Errorf("archivingOK = %v, want %v", ptrString(v.archivingOK), ptrString(tc.ok))
			}
		})
	}
}

func ptrString(b *bool) string {
	if b == nil {
		return "nil"
	}
	if *b {
		return "true"
	}
	return "false"
}

// Overdue follows the clock: in time until the firing plus its slack,
// with a recheck that lands on that moment, and overdue after.
func TestBackupOverdueFollowsTheClock(t *testing.T) {
	t.Parallel()
	clock := clocktesting.NewFakePassiveClock(t0) // Monday 12:00
	in := backupInputs{archiving: archiving(true, ""), schedule: "30 * * * *",
		window: &barmanv1.RecoveryWindow{LastSuccessfulBackupTime: at(-10 * time.Minute)}}
	v := judgeBackups(in, clock.Now())
	// Fired next at 12:30; the slack is the hourly period, capped at an hour.
	if v.reason != pgv1.ReasonBackupsHealthy || v.recheck != 90*time.Minute {
		t.Fatalf("at 12:00: %s, recheck %s; want healthy, a recheck at 13:30 (90m)", v.reason, v.recheck)
	}
	clock.SetTime(t0.Add(v.recheck - time.Second))
	if v := judgeBackups(in, clock.Now()); v.reason != pgv1.ReasonBackupsHealthy || v.recheck != time.Second {
		t.Fatalf("a second before: %s, recheck %s", v.reason, v.recheck)
	}
	clock.SetTime(t0.Add(90 * time.Minute))
	if v := judgeBackups(in, clock.Now()); v.reason != pgv1.ReasonBackupOverdue || v.recheck != 0 || v.status != metav1.ConditionFalse {
		t.Fatalf("at 13:30: %s %s, recheck %s; want overdue", v.status, v.reason, v.recheck)
	}
	// A schedule every minute still gives a backup 5 minutes.
	in = backupInputs{archiving: archiving(true, ""), schedule: "* * * * *",
		window: &barmanv1.RecoveryWindow{LastSuccessfulBackupTime: at(-5 * time.Minute)}}
	if v := judgeBackups(in, t0); v.reason != pgv1.ReasonBackupsHealthy || v.recheck != time.Minute {
		t.Fatalf("every minute, 5m after the last: %s, recheck %s; want healthy for one more minute", v.reason, v.recheck)
	}
}

// backupPassAt is a pass of cluster shop with an object store, reading a
// CNPG Cluster with conds and the plugin's window, on clock.
func backupPassAt(status pgv1.PostgresClusterStatus, conds []metav1.Condition, w *barmanv1.RecoveryWindow, clock *clocktesting.FakePassiveClock) *pass {
	pc := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop", UID: "uid-shop", Generation: 2}, Status: status}
	obs := &observation{cnpg: &cnpgv1.Cluster{Status: cnpgv1.ClusterStatus{Conditions: conds}}}
	if w != nil {
		obs.objectStore = &barmanv1.ObjectStore{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: naming.ObjectStore("shop"),
				OwnerReferences: []metav1.OwnerReference{{UID: "uid-shop", Controller: new(true)}}},
			Status: barmanv1.ObjectStoreStatus{ServerRecoveryWindow: map[string]barmanv1.RecoveryWindow{"shop": *w}},
		}
	}
	return &pass{cluster: pc, obs: obs, status: pc.Status.DeepCopy(), deps: &deps{clock: clock},
		want: &desired{ObjectStore: &pgv1.ObjectStoreSpec{DestinationPath: "s3://b/pg", CredentialsSecretName: "backup-creds"}}}
}

// A sequence of passes as CNPG's conditions change: the condition
// follows, a pass that reads nothing new builds an identical status (so
// nothing is written), and each transition makes exactly one Event.
func TestBackupHealthTransitionsMakeOneEventEach(t *testing.T) {
	t.Parallel()
	rec := record.NewFakeRecorder(10)
	c := &Controller{deps: &deps{recorder: rec}}
	clock := clocktesting.NewFakePassiveClock(t0)
	var stored pgv1.PostgresClusterStatus
	pass := func(conds ...metav1.Condition) (wrote bool) {
		p := backupPassAt(stored, conds, &barmanv1.RecoveryWindow{FirstRecoverabilityPoint: at(-time.Hour)}, clock)
		p.recordBackupHealth()
		if equality.Semantic.DeepEqual(&stored, p.status) {
			return false
		}
		c.backupHealthEvents(p.cluster, p.status) // announce, after the write
		stored = *p.status
		return true
	}
	steps := []struct {
		name   string
		conds  []metav1.Condition
		wrote  bool
		reason string
		events []string
	}{
		{"nothing archived yet", nil, true, pgv1.ReasonArchivingPending, nil},
		{"archiving works", []metav1.Condition{*archiving(true, "")}, true, pgv1.ReasonBackupsHealthy, nil},
		{"again: nothing to write", []metav1.Condition{*archiving(true, "")}, false, pgv1.ReasonBackupsHealthy, nil},
		{"the store refuses", []metav1.Condition{*archiving(false, missingKey)}, true, pgv1.ReasonArchivingFailing,
			[]string{"Warning BackupsFailing ArchivingFailing: CloudNativePG reports WAL archiving failing: " + missingKey}},
		{"still refusing: no write, no Event", []metav1.Condition{*archiving(false, missingKey)}, false, pgv1.ReasonArchivingFailing, nil},
		{"refusing for another reason: written, same cause, no Event",
			[]metav1.Condition{*archiving(false, "rpc error: code = Unknown desc = missing key ACCESS_SECRET_KEY, inside secret backup-creds")},
			true, pgv1.ReasonArchivingFailing, nil},
		{"archiving works, the last backup failed: a new cause", []metav1.Condition{*archiving(true, ""),
			*lastBackup(metav1.ConditionFalse, cnpgLastBackupFailed, missingKey)}, true, pgv1.ReasonLastBackupFailed,
			[]string{"Warning BackupsFailing LastBackupFailed: CloudNativePG reports the last backup failed: " + missingKey}},
		{"recovered", []metav1.Condition{*archiving(true, ""), *lastBackup(metav1.ConditionTrue, "LastBackupSucceeded", "Backup was successful")},
			true, pgv1.ReasonBackupsHealthy, []string{"Normal BackupsRecovered WAL archiving works and no base backup is failed or overdue (was LastBackupFailed)"}},
	}
	for _, s := range steps {
		if got := pass(s.conds...); got != s.wrote {
			t.Errorf("%s: wrote %v, want %v", s.name, got, s.wrote)
		}
		if c := meta.FindStatusCondition(stored.Conditions, pgv1.ConditionBackupHealthy); c == nil || c.Reason != s.reason {
			t.Errorf("%s: BackupHealthy = %+v, want reason %s", s.name, c, s.reason)
		}
		if got := ct.Events(rec); !equality.Semantic.DeepEqual(got, s.events) && (len(got) != 0 || len(s.events) != 0) {
			t.Errorf("%s: Events %q, want %q", s.name, got, s.events)
		}
	}
	if stored.Phase != "" || meta.FindStatusCondition(stored.Conditions, pgv1.ConditionReady) != nil {
		t.Errorf("backup health touched the phase or Ready: %+v", stored)
	}
}

// Without an object store the condition goes; without a CNPG Cluster
// status keeps what it said.
func TestBackupHealthWithoutObjectStoreOrCluster(t *testing.T) {
	t.Parallel()
	failing := pgv1.PostgresClusterStatus{Conditions: []metav1.Condition{{Type: pgv1.ConditionBackupHealthy, Status: metav1.ConditionFalse, Reason: pgv1.ReasonArchivingFailing}}}
	p := backupPassAt(failing, nil, nil, clocktesting.NewFakePassiveClock(t0))
	p.obs.cnpg = nil
	if v := p.recordBackupHealth(); v != nil || !meta.IsStatusConditionFalse(p.status.Conditions, pgv1.ConditionBackupHealthy) {
		t.Errorf("no CNPG Cluster: verdict %+v, conditions %+v; want the condition kept", v, p.status.Conditions)
	}
	p.want.ObjectStore = nil
	if v := p.recordBackupHealth(); v != nil || meta.FindStatusCondition(p.status.Conditions, pgv1.ConditionBackupHealthy) != nil {
		t.Errorf("no object store: verdict %+v, conditions %+v; want no condition", v, p.status.Conditions)
	}
}

// The gauges follow the reading: archiving-ok 1 then 0, the last
// successful backup's time; gone with the object store.
func TestBackupGaugesFollowTheReading(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	c := &Controller{deps: &deps{backupMetrics: controller.NewBackupMetrics(reg)}}
	w := &barmanv1.RecoveryWindow{LastSuccessfulBackupTime: at(-time.Hour)}
	gauge := func(name string) string {
		t.Helper()
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == name && len(mf.GetMetric()) == 1 {
				return fmt.Sprint(mf.GetMetric()[0].GetGauge().GetValue())
			}
		}
		return "absent"
	}
	for _, step := range []struct {
		cond        *metav1.Condition
		ok, backups string
	}{
		{nil, "absent", fmt.Sprint(float64(t0.Add(-time.Hour).Unix()))},
		{archiving(true, ""), "1", fmt.Sprint(float64(t0.Add(-time.Hour).Unix()))},
		{archiving(false, missingKey), "0", fmt.Sprint(float64(t0.Add(-time.Hour).Unix()))},
	} {
		var conds []metav1.Condition
		if step.cond != nil {
			conds = append(conds, *step.cond)
		}
		p := backupPassAt(pgv1.PostgresClusterStatus{}, conds, w, clocktesting.NewFakePassiveClock(t0))
		p.status.BackupStatus = &pgv1.BackupStatus{LastSuccessfulBackupTime: w.LastSuccessfulBackupTime}
		c.exportBackupHealth(p.cluster, p.status, p.recordBackupHealth())
		if got := gauge("setpoint_cluster_wal_archiving_ok"); got != step.ok {
			t.Errorf("%v: wal_archiving_ok %s, want %s", step.cond, got, step.ok)
		}
		if got := gauge("setpoint_cluster_last_successful_backup_timestamp_seconds"); got != step.backups {
			t.Errorf("%v: last_successful_backup_timestamp_seconds %s, want %s", step.cond, got, step.backups)
		}
	}
	p := backupPassAt(pgv1.PostgresClusterStatus{}, nil, w, clocktesting.NewFakePassiveClock(t0))
	p.want.ObjectStore = nil
	c.exportBackupHealth(p.cluster, p.status, p.recordBackupHealth())
	if a, b := gauge("setpoint_cluster_wal_archiving_ok"), gauge("setpoint_cluster_last_successful_backup_timestamp_seconds"); a != "absent" || b != "absent" {
		t.Errorf("without an object store: %s, %s; want both gauges gone", a, b)
	}
}
