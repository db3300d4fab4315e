package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// CloudNativePG's labels on the Job that runs pg_upgrade
// (pkg/reconciler/majorupgrade/job.go), and its container's name.
const (
	cnpgJobRoleLabel     = "cnpg.io/jobRole"
	cnpgMajorUpgradeRole = "major-upgrade"
)

// upgradeLogLines bounds the log lines of a failed pg_upgrade quoted in
// status: enough for pg_upgrade's own reason, never a whole log.
const upgradeLogLines = 8

// upgradeRunning follows CloudNativePG's upgrade: done when the data runs
// the target major (pgDataImageInfo moved) and every instance is back;
// failed when its Job failed. CloudNativePG never retries a failed
// pg_upgrade (the Job's backoffLimit is 0) and leaves every instance
// stopped; pg_upgrade changed nothing of the old data, so the way back is
// its documented rollback: the Cluster asks for the old major again. The
// next pass does that (walkUpgrade), once the failure is on record.
func (p *pass) upgradeRunning(ctx context.Context, cl *cnpgv1.Cluster, rec *pgv1.MajorUpgradeStatus) error {
	if data, ok := dataMajor(cl); ok && data == int(rec.To) && cl.Status.PGDataImageInfo != nil {
		if cl.Status.Phase == cnpgHealthy && cl.Status.ReadyInstances == cl.Status.Instances && cl.Status.Instances > 0 {
			p.upgradeTo(rec, pgv1.UpgradeAnalyzing, fmt.Sprintf("PostgreSQL %d runs; analyzing every database as its owner", rec.To))
			p.upgradeCondition(false, pgv1.ReasonUpgradeAnalyzing, rec.Message)
			return nil
		}
		p.upgradeWaits(rec, pgv1.ReasonUpgrading, fmt.Sprintf("pg_upgrade is done; CloudNativePG brings the instances back (%d of %d ready): %s",
			cl.Status.ReadyInstances, cl.Status.Instances, phaseOr(cl.Status.Phase, "no phase yet")), upgradeRunningRecheck)
		return nil
	}
	jobs, err := p.deps.kube.BatchV1().Jobs(p.cluster.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: fmt.Sprintf("%s=%s,%s=%s", cnpgClusterLabel, p.cluster.Name, cnpgJobRoleLabel, cnpgMajorUpgradeRole)})
	if err != nil {
		return fmt.Errorf("list CloudNativePG's upgrade Jobs: %w", err)
	}
	for i := range jobs.Items {
		job := &jobs.Items[i]
		// A Job older than this attempt is the last attempt's, which
		// CloudNativePG's rollback has not deleted yet.
		if job.CreationTimestamp.Before(&rec.StartTime) {
			continue
		}
		if c := jobCondition(job, batchv1.JobFailed); c != nil {
			msg := fmt.Sprintf("CloudNativePG's pg_upgrade Job %s failed (%s: %s)%s; the old data is untouched, and the cluster goes back to PostgreSQL %d (CloudNativePG's rollback): fix the cause, then set the annotation %s to a new value to try again",
				job.Name, c.Reason, c.Message, p.upgradeLog(ctx, job), rec.From, pgv1.RetryUpgradeAnnotation)
			p.upgradeTo(rec, pgv1.UpgradeFailed, msg)
			logUpgrade(ctx, rec, "Upgrade failed", "job", job.Name)
			return nil
		}
	}
	running := "CloudNativePG stops the instances to run pg_upgrade"
	if len(jobs.Items) > 0 {
		running = fmt.Sprintf("CloudNativePG runs pg_upgrade in Job %s", jobs.Items[0].Name)
	}
	p.upgradeWaits(rec, pgv1.ReasonUpgrading, fmt.Sprintf("%s (%s)", running, phaseOr(cl.Status.Phase, "no phase yet")), upgradeRunningRecheck)
	return nil
}

func jobCondition(job *batchv1.Job, typ batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range job.Status.Conditions {
		if c := &job.Status.Conditions[i]; c.Type == typ && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// upgradeLog quotes the last lines of the failed Job's pg_upgrade
// container, read once, when the failure is recorded: CloudNativePG's
// rollback deletes the Job, and its log with it. Nothing when the log
// cannot be read (the failure is reported all the same).
func (p *pass) upgradeLog(ctx context.Context, job *batchv1.Job) string {
	pods, err := p.deps.kube.CoreV1().Pods(job.Namespace).List(ctx, metav1.ListOptions{LabelSelector: "job-name=" + job.Name})
	if err != nil || len(pods.Items) == 0 {
		return ""
	}
	pod := pods.Items[0]
	req := p.deps.kube.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{
		Container: cnpgMajorUpgradeRole, TailLines: ptr.To[int64](upgradeLogLines), LimitBytes: ptr.To[int64](2048)})
	stream, err := req.Stream(ctx)
	if err != nil {
		return ""
	}
	defer stream.Close()
	b, err := io.ReadAll(stream)
	if err != nil || len(b) == 0 {
		return ""
	}
	return fmt.Sprintf("; the last lines of `kubectl logs -n %s %s -c %s`: %s", pod.Namespace, pod.Name, cnpgMajorUpgradeRole, logText(b))
}

// logText is the log's lines as one line of text: of CloudNativePG's JSON
// log lines, their message (pg_upgrade's own words) and error, the rest
// as written.
func logText(b []byte) string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var entry struct {
			Msg   string `json:"msg"`
			Error string `json:"error"`
		}
		if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg != "" {
			line = strings.TrimSpace(strings.TrimSpace(entry.Msg) + " " + entry.Error)
		}
		if line = strings.Join(strings.Fields(line), " "); line != "" {
			out = append(out, line)
		}
	}
	return strings.Join(out, " \u23ce ")
}
