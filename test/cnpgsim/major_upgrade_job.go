package cnpgsim

import (
	"context"
	"fmt"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// The major-upgrade Job as CNPG 1.30 makes it (pkg/specs/jobs.go
// CreatePrimaryJob, pkg/reconciler/majorupgrade/job.go), and its status as
// the Job controller of Kubernetes 1.37 writes it
// (pkg/controller/job/job_controller.go).

const (
	jobRoleLabel      = "cnpg.io/jobRole"
	instanceNameLabel = "cnpg.io/instanceName"
	jobRoleUpgrade    = "major-upgrade"
)

// upgradeJobName is `<instance>-major-upgrade`, the instance being the
// primary (serial 1 on the stand-in).
func upgradeJobName(cluster string) string { return cluster + "-1-" + jobRoleUpgrade }

// upgradeJob is the Cluster's major-upgrade Job (CNPG's
// getMajorUpdateJob: by its jobRole label among the Cluster's Jobs); one
// being deleted counts as gone.
func (r *clusterRun) upgradeJob(ctx context.Context) (*batchv1.Job, error) {
	sel := labels.SelectorFromSet(labels.Set{clusterLabel: r.cluster.Name, jobRoleLabel: jobRoleUpgrade})
	list, err := r.s.kube.BatchV1().Jobs(r.cluster.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, fmt.Errorf("list major-upgrade jobs: %w", err)
	}
	for i := range list.Items {
		j := &list.Items[i]
		if j.DeletionTimestamp == nil && metav1.IsControlledBy(j, r.cluster) {
			return j, nil
		}
	}
	return nil, nil
}

// createUpgradeJob creates the Job and starts it: startTime and one
// active Pod, as the Job controller reports it once its Pod exists.
func (r *clusterRun) createUpgradeJob(ctx context.Context) (*batchv1.Job, error) {
	c := r.cluster
	instance := c.Name + "-1"
	lbl := map[string]string{
		instanceNameLabel:              instance,
		clusterLabel:                   c.Name,
		jobRoleLabel:                   jobRoleUpgrade,
		"app.kubernetes.io/name":       "postgresql",
		"app.kubernetes.io/instance":   c.Name,
		"app.kubernetes.io/version":    strconv.Itoa(r.requested.MajorVersion),
		"app.kubernetes.io/component":  "database",
		"app.kubernetes.io/managed-by": "cloudnative-pg",
	}
	podLabels := map[string]string{"cnpg.io/instanceRole": "primary", "role": "primary"}
	for k, v := range lbl {
		podLabels[k] = v
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name: upgradeJobName(c.Name), Namespace: c.Namespace, Labels: lbl,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(c, cnpgv1.SchemeGroupVersion.WithKind("Cluster"))},
		},
		Spec: batchv1.JobSpec{
			// A failed pg_upgrade will not succeed on retry (CNPG).
			BackoffLimit: ptr.To[int32](0),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					Hostname: upgradeJobName(c.Name),
					InitContainers: []corev1.Container{{
						Name: "prepare", Image: c.Status.PGDataImageInfo.Image,
						Command: []string{"/controller/manager", "instance", "upgrade", "prepare", "/controller/old"},
					}},
					Containers: []corev1.Container{{
						Name: jobRoleUpgrade, Image: r.requested.Image,
						Command: []string{"/controller/manager", "instance", "upgrade", "execute", "/controller/old/bindir.txt"},
					}},
					RestartPolicy: corev1.RestartPolicyNever,
				},
			},
		},
	}
	created, err := r.s.kube.BatchV1().Jobs(c.Namespace).Create(ctx, job, metav1.CreateOptions{FieldManager: r.s.opts.FieldManager})
	if apierrors.IsAlreadyExists(err) {
		// One being deleted still holds the name: look again shortly.
		return nil, fmt.Errorf("create job %s: %w", job.Name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("create job %s: %w", job.Name, err)
	}
	now := metav1.Now()
	created.Status.StartTime = &now
	created.Status.Active = 1
	created.Status.Ready = ptr.To[int32](0)
	created.Status.Terminating = ptr.To[int32](0)
	started, err := r.s.kube.BatchV1().Jobs(c.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{FieldManager: r.s.opts.FieldManager})
	if err != nil {
		return nil, fmt.Errorf("start job %s: %w", job.Name, err)
	}
	return started, nil
}

// finishUpgradeJob ends the Job as the Job controller does: the interim
// condition (SuccessCriteriaMet, FailureTarget) and the final one
// (Complete, Failed) with the same reason and message.
func (r *clusterRun) finishUpgradeJob(ctx context.Context, job *batchv1.Job, succeed bool) (*batchv1.Job, error) {
	next := job.DeepCopy()
	now := metav1.NewTime(time.Now())
	cond := func(t batchv1.JobConditionType, reason, message string) batchv1.JobCondition {
		return batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: message,
			LastProbeTime: now, LastTransitionTime: now}
	}
	next.Status.Active = 0
	next.Status.Ready = ptr.To[int32](0)
	next.Status.Terminating = ptr.To[int32](0)
	if succeed {
		const reason, message = "CompletionsReached", "Reached expected number of succeeded pods"
		next.Status.Succeeded = 1
		next.Status.CompletionTime = &now
		next.Status.Conditions = append(next.Status.Conditions,
			cond(batchv1.JobSuccessCriteriaMet, reason, message), cond(batchv1.JobComplete, reason, message))
	} else {
		const reason, message = "BackoffLimitExceeded", "Job has reached the specified backoff limit"
		next.Status.Failed = 1
		next.Status.Conditions = append(next.Status.Conditions,
			cond(batchv1.JobFailureTarget, reason, message), cond(batchv1.JobFailed, reason, message))
	}
	updated, err := r.s.kube.BatchV1().Jobs(job.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{FieldManager: r.s.opts.FieldManager})
	if err != nil {
		return nil, fmt.Errorf("end job %s: %w", job.Name, err)
	}
	return updated, nil
}

// deleteUpgradeJob deletes it as CNPG does: foreground propagation.
func (r *clusterRun) deleteUpgradeJob(ctx context.Context, job *batchv1.Job) error {
	err := r.s.kube.BatchV1().Jobs(job.Namespace).Delete(ctx, job.Name, metav1.DeleteOptions{
		PropagationPolicy: ptr.To(metav1.DeletePropagationForeground),
		Preconditions:     &metav1.Preconditions{UID: &job.UID},
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete job %s: %w", job.Name, err)
	}
	return nil
}

// jobSucceeded is CNPG's JobHasOneCompletion.
func jobSucceeded(j *batchv1.Job) bool {
	want := int32(1)
	if j.Spec.Completions != nil {
		want = *j.Spec.Completions
	}
	return j.Status.Succeeded == want
}

func jobFailed(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// upgradeTargetImage is CNPG's getTargetImageFromMajorUpgradeJob.
func upgradeTargetImage(j *batchv1.Job) (string, bool) {
	for _, c := range j.Spec.Template.Spec.Containers {
		if c.Name == jobRoleUpgrade {
			return c.Image, true
		}
	}
	return "", false
}

// recordEvent records a Normal Event on the Cluster as CNPG's recorder
// (component cloudnative-pg) does.
func (s *Simulator) recordEvent(ctx context.Context, c *cnpgv1.Cluster, reason, message string) error {
	now := metav1.Now()
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x", c.Name, now.UnixNano()), Namespace: c.Namespace},
		InvolvedObject: corev1.ObjectReference{
			APIVersion: cnpgv1.SchemeGroupVersion.String(), Kind: "Cluster",
			Namespace: c.Namespace, Name: c.Name, UID: c.UID, ResourceVersion: c.ResourceVersion,
		},
		Reason: reason, Message: message, Type: corev1.EventTypeNormal,
		Source:         corev1.EventSource{Component: "cloudnative-pg"},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}
	if _, err := s.kube.CoreV1().Events(c.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("record event %s: %w", reason, err)
	}
	return nil
}
