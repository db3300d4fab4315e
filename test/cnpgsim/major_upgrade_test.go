package cnpgsim_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

const (
	image15 = "ghcr.io/cloudnative-pg/postgresql:15.14"
	image17 = "ghcr.io/cloudnative-pg/postgresql:17.6"
)

func withImage(image string) func(*cnpgv1.Cluster) {
	return func(c *cnpgv1.Cluster) { c.Spec.ImageName = image }
}

// upgradeStep is one distinct status of a Cluster during an upgrade.
type upgradeStep struct {
	phase, reason, ready string
	major                int
}

func (s upgradeStep) String() string {
	return fmt.Sprintf("%s (%s) Ready=%s major=%d", s.phase, s.reason, s.ready, s.major)
}

// follow passes each event of w to see until see returns true; it fails
// when the watch ends or after timeout, with what it was waiting for.
func follow(t *testing.T, w watch.Interface, timeout time.Duration, what func() string, see func(watch.Event) bool) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch ended: %s", what())
			}
			if see(ev) {
				return
			}
		case <-deadline:
			t.Fatalf("not within %s: %s", timeout, what())
		}
	}
}

// clusterSteps collects the Cluster's distinct steps from a watch until
// done says so.
func clusterSteps(t *testing.T, w watch.Interface, done func(*cnpgv1.Cluster) bool) []upgradeStep {
	t.Helper()
	var steps []upgradeStep
	follow(t, w, 60*time.Second, func() string { return fmt.Sprintf("the upgrade's end; steps so far: %v", steps) }, func(ev watch.Event) bool {
		c, ok := ev.Object.(*cnpgv1.Cluster)
		if !ok {
			return false
		}
		s := upgradeStep{phase: c.Status.Phase, reason: c.Status.PhaseReason}
		if cond := meta.FindStatusCondition(c.Status.Conditions, "Ready"); cond != nil {
			s.ready = string(cond.Status)
		}
		if c.Status.PGDataImageInfo != nil {
			s.major = c.Status.PGDataImageInfo.MajorVersion
		}
		if len(steps) == 0 || steps[len(steps)-1] != s {
			steps = append(steps, s)
		}
		return done(c)
	})
	return steps
}

func watchCluster(t *testing.T, ns, name, fromVersion string) watch.Interface {
	t.Helper()
	w, err := pg.CNPGV1().Clusters(ns).Watch(t.Context(), metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String(), ResourceVersion: fromVersion,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

func watchJobs(t *testing.T, ns, fromVersion string) watch.Interface {
	t.Helper()
	w, err := kube.BatchV1().Jobs(ns).Watch(t.Context(), metav1.ListOptions{ResourceVersion: fromVersion})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

// A major upgrade that succeeds, as CNPG plays it: the phase and reason
// with Ready False, every instance down, a Job that completes and is
// deleted, pgDataImageInfo moved to the new image and major, the
// replicas re-created under new serials, healthy again — with the data
// of before, since it is the same data directory.
func TestMajorUpgradeSucceeds(t *testing.T) {
	ns := newNamespace(t)
	newCluster(t, ns, "up", withImage(image15), func(c *cnpgv1.Cluster) { c.Spec.Instances = 2 })
	before := waitHealthy(t, ns, "up")
	if got := before.Status.PGDataImageInfo; got == nil || *got != (cnpgv1.ImageInfo{Image: image15, MajorVersion: 15}) {
		t.Fatalf("pgDataImageInfo %+v, want the image and major the Cluster started on", got)
	}
	superExec(t, ns, "up", "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('from 15'); CREATE ROLE keeper")
	jobs, err := kube.BatchV1().Jobs(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cw := watchCluster(t, ns, "up", getCluster(t, ns, "up").ResourceVersion)
	jw := watchJobs(t, ns, jobs.ResourceVersion)

	updateCluster(t, ns, "up", withImage(image17))
	steps := clusterSteps(t, cw, func(c *cnpgv1.Cluster) bool {
		return c.Status.Phase == "Cluster in healthy state" && c.Status.PGDataImageInfo.MajorVersion == 17
	})
	want := []upgradeStep{
		{"Cluster in healthy state", "", "True", 15},
		{"Upgrading Postgres major version", "Upgrading cluster to major version 17", "False", 15},
		{"Upgrading Postgres major version", "Upgrading cluster to major version 17", "False", 17},
		{"Waiting for the instances to become active", "Some instances are not yet active. Please wait.", "False", 17},
		{"Creating a new replica", "Creating replica up-3-join", "False", 17},
		{"Cluster in healthy state", "", "True", 17},
	}
	if !slices.Equal(steps, want) {
		t.Errorf("steps:\n got %v\nwant %v", steps, want)
	}

	// The Job, from its creation to its deletion.
	seen, job := jobEvents(t, jw)
	if last := seen[len(seen)-1]; !strings.HasPrefix(last, "DELETED") || !strings.Contains(last, "Complete") {
		t.Errorf("job events %v, want it Complete, then deleted", seen)
	}
	checkUpgradeJob(t, job, "up", image17)

	after := getCluster(t, ns, "up")
	if got := *after.Status.PGDataImageInfo; got != (cnpgv1.ImageInfo{Image: image17, MajorVersion: 17}) {
		t.Errorf("pgDataImageInfo %+v, want the Job's image and major 17", got)
	}
	if got := after.Status.HealthyPVC; !slices.Equal(got, []string{"up-1", "up-3"}) {
		t.Errorf("healthyPVC %v, want the primary's and the re-created replica's", got)
	}
	if v := superQuery[string](t, ns, "up", "postgres", "SELECT v FROM kept"); v != "from 15" {
		t.Errorf("row after the upgrade: %q", v)
	}
	if n := superQuery[int64](t, ns, "up", "postgres", "SELECT count(*) FROM pg_roles WHERE rolname = 'keeper'"); n != 1 {
		t.Errorf("role keeper after the upgrade: %d rows", n)
	}
	// The stand-in's binaries are the host's: the version does not move
	// (the known limit; real CNPG's tier checks 17).
	if v := superQuery[string](t, ns, "up", "postgres", "SHOW server_version_num"); !strings.HasPrefix(v, "15") {
		t.Errorf("server_version_num %s: the stand-in runs the host's PostgreSQL 15", v)
	}
}

// jobEvents are the Job's events (type and conditions) up to its
// deletion, and the Job as last seen.
func jobEvents(t *testing.T, w watch.Interface) ([]string, *batchv1.Job) {
	t.Helper()
	var seen []string
	var job *batchv1.Job
	follow(t, w, 30*time.Second, func() string { return fmt.Sprintf("the Job's deletion; events: %v", seen) }, func(ev watch.Event) bool {
		j, ok := ev.Object.(*batchv1.Job)
		if !ok {
			return false
		}
		job = j
		what := string(ev.Type)
		for _, c := range j.Status.Conditions {
			what += " " + string(c.Type)
		}
		seen = append(seen, what)
		return ev.Type == watch.Deleted
	})
	return seen, job
}

// checkUpgradeJob holds the Job to CNPG's definition of it.
func checkUpgradeJob(t *testing.T, job *batchv1.Job, cluster, image string) {
	t.Helper()
	if job.Name != cluster+"-1-major-upgrade" {
		t.Errorf("job name %s, want %s-1-major-upgrade", job.Name, cluster)
	}
	if job.Labels["cnpg.io/cluster"] != cluster || job.Labels["cnpg.io/jobRole"] != "major-upgrade" {
		t.Errorf("job labels %v", job.Labels)
	}
	if ref := metav1.GetControllerOf(job); ref == nil || ref.Kind != "Cluster" || ref.Name != cluster {
		t.Errorf("job controller %+v, want the Cluster", ref)
	}
	if job.Spec.BackoffLimit == nil || *job.Spec.BackoffLimit != 0 {
		t.Errorf("backoffLimit %v, want 0", job.Spec.BackoffLimit)
	}
	cs := job.Spec.Template.Spec.Containers
	if len(cs) != 1 || cs[0].Name != "major-upgrade" || cs[0].Image != image {
		t.Errorf("containers %+v, want major-upgrade on %s", cs, image)
	}
}

// A failed upgrade, then the rollback CNPG documents: the Job ends Failed
// as the Job controller writes it, nothing is retried, the Cluster stays
// upgrading with its server down; asking for the old image again deletes
// the Job, records MajorUpgradeRollback and starts the server on the old
// data, which is all there.
func TestMajorUpgradeFailsThenRollsBack(t *testing.T) {
	ns := newNamespace(t)
	newCluster(t, ns, "down", withImage(image15))
	waitHealthy(t, ns, "down")
	superExec(t, ns, "down", "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('before')")
	sim.FailMajorUpgrade(ns, "down")

	updateCluster(t, ns, "down", withImage(image17))
	var job *batchv1.Job
	eventually(t, 30*time.Second, "the upgrade Job failed", func() error {
		j, err := kube.BatchV1().Jobs(ns).Get(t.Context(), "down-1-major-upgrade", metav1.GetOptions{})
		if err != nil {
			return err
		}
		job = j
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobFailed {
				return nil
			}
		}
		return fmt.Errorf("conditions %+v", j.Status.Conditions)
	})
	checkUpgradeJob(t, job, "down", image17)
	conds := map[batchv1.JobConditionType]batchv1.JobCondition{}
	for _, c := range job.Status.Conditions {
		conds[c.Type] = c
	}
	for _, typ := range []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed} {
		c := conds[typ]
		if c.Status != corev1.ConditionTrue || c.Reason != "BackoffLimitExceeded" || c.Message != "Job has reached the specified backoff limit" {
			t.Errorf("job condition %s = %+v, want the Job controller's BackoffLimitExceeded", typ, c)
		}
	}
	if job.Status.Failed != 1 || job.Status.Succeeded != 0 || job.Status.StartTime == nil {
		t.Errorf("job status failed=%d succeeded=%d startTime=%v", job.Status.Failed, job.Status.Succeeded, job.Status.StartTime)
	}
	c := getCluster(t, ns, "down")
	if c.Status.Phase != "Upgrading Postgres major version" || c.Status.PhaseReason != "Upgrading cluster to major version 17" ||
		c.Status.ReadyInstances != 0 || readyCondition(t, ns, "down") != metav1.ConditionFalse {
		t.Errorf("after the failure: phase %q (%s), readyInstances %d", c.Status.Phase, c.Status.PhaseReason, c.Status.ReadyInstances)
	}
	if got := *c.Status.PGDataImageInfo; got != (cnpgv1.ImageInfo{Image: image15, MajorVersion: 15}) {
		t.Errorf("pgDataImageInfo %+v moved although the upgrade failed", got)
	}
	if _, err := query[int](t, readHostMap(t), ns, "down", "postgres", "su-down", "postgres", "SELECT 1"); err == nil {
		t.Error("the server answered while the upgrade Job has failed: every instance must be down")
	}

	cw := watchCluster(t, ns, "down", c.ResourceVersion)
	updateCluster(t, ns, "down", withImage(image15))
	steps := clusterSteps(t, cw, func(c *cnpgv1.Cluster) bool { return c.Status.Phase == "Cluster in healthy state" })
	want := []upgradeStep{
		{"Upgrading Postgres major version", "Upgrading cluster to major version 17", "False", 15},
		{"Waiting for the instances to become active", "Some instances are not yet active. Please wait.", "False", 15},
		{"Cluster in healthy state", "", "True", 15},
	}
	if !slices.Equal(steps, want) {
		t.Errorf("steps of the rollback:\n got %v\nwant %v", steps, want)
	}
	if _, err := kube.BatchV1().Jobs(ns).Get(t.Context(), "down-1-major-upgrade", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the failed Job after the rollback: %v, want it deleted", err)
	}
	evs, err := kube.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{FieldSelector: "reason=MajorUpgradeRollback"})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs.Items) != 1 || evs.Items[0].Message != "Cleaned up failed upgrade job, rolling back to major version 15" ||
		evs.Items[0].InvolvedObject.Name != "down" || evs.Items[0].Type != corev1.EventTypeNormal {
		t.Errorf("rollback events %+v", evs.Items)
	}
	if got := *getCluster(t, ns, "down").Status.PGDataImageInfo; got != (cnpgv1.ImageInfo{Image: image15, MajorVersion: 15}) {
		t.Errorf("pgDataImageInfo after the rollback %+v", got)
	}
	if v := superQuery[string](t, ns, "down", "postgres", "SELECT v FROM kept"); v != "before" {
		t.Errorf("row after the rollback: %q", v)
	}
}

// A catalog's new image for the Cluster's major (the minor-upgrade path)
// moves pgDataImageInfo at once, with no upgrade.
func TestSameMajorImageFollowsAtOnce(t *testing.T) {
	ns := newNamespace(t)
	newCluster(t, ns, "minor", withImage(image15))
	waitHealthy(t, ns, "minor")
	updateCluster(t, ns, "minor", withImage("ghcr.io/cloudnative-pg/postgresql:15.15"))
	eventually(t, 30*time.Second, "pgDataImageInfo on the new image", func() error {
		c := getCluster(t, ns, "minor")
		if got := *c.Status.PGDataImageInfo; got != (cnpgv1.ImageInfo{Image: "ghcr.io/cloudnative-pg/postgresql:15.15", MajorVersion: 15}) {
			return fmt.Errorf("pgDataImageInfo %+v", got)
		}
		if c.Status.Phase != "Cluster in healthy state" {
			return fmt.Errorf("phase %s", c.Status.Phase)
		}
		return nil
	})
	jobs, err := kube.BatchV1().Jobs(ns).List(context.WithoutCancel(t.Context()), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items) != 0 {
		t.Errorf("jobs %d, want none for a minor update", len(jobs.Items))
	}
}
