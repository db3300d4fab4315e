package testkit

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// Kit is one tier's way to wait on the API and reach Postgres: its
// clients, how often it polls, how much slower than the stand-in it is,
// and how it dials a cluster. The waits every tier
// needs are its methods, written once; a timeout a caller passes is used
// as given, the kit's own defaults (deletion, garbage collection, a
// backup request's answer) are scaled by Scale.
type Kit struct {
	Kube kubernetes.Interface
	PG   versioned.Interface
	// Poll is the interval between two looks.
	Poll time.Duration
	// Scale multiplies the kit's default timeouts (1 on the stand-in).
	Scale float64
	// Sessions reaches the tier's clusters (session.go).
	Sessions Sessions
	// Describe, when set, logs what a failed test's namespace holds
	// before it is deleted (Namespace): on a real node the Pods' and
	// Events' story is gone with the namespace.
	Describe func(t testing.TB, ns string)
	// WALArchived tells whether a WAL segment reached the tier's object
	// store (wal.go, SwitchWAL).
	WALArchived WALArchived
}

// Namespace creates a namespace for one test, named after it, and
// deletes it when the test ends, after Describe when the test failed.
func (k Kit) Namespace(t testing.TB) string {
	t.Helper()
	var onFailure func(string)
	if k.Describe != nil {
		onFailure = func(ns string) { k.Describe(t, ns) }
	}
	return envtest.CreateNamespace(t, k.Kube, onFailure)
}

// scaled is one of the kit's default timeouts on this tier.
func (k Kit) scaled(d time.Duration) time.Duration {
	if k.Scale <= 0 {
		return d
	}
	return time.Duration(float64(d) * k.Scale)
}

// Eventually polls cond until it holds or timeout passes, then fails the
// test with what cond last saw: its detail, or its last error. An error
// does not end the wait: an object not created yet, or an API call cut
// short, is seen again at the next look.
func (k Kit) Eventually(t testing.TB, timeout time.Duration, what string, cond func(ctx context.Context) (bool, string, error)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), k.Poll, timeout, true, func(ctx context.Context) (bool, error) {
		ok, seen, err := cond(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			// The poll's own deadline cut this call short: what the
			// calls before it saw says more than the cancellation.
		case err != nil:
			last = err.Error()
		default:
			last = seen
		}
		return ok && err == nil, nil
	})
	if err != nil {
		t.Fatalf("%s: not within %s; last seen: %s", what, timeout, last)
	}
}

// Until polls cond until it holds or timeout passes. Unlike Eventually,
// an error other than NotFound ends the wait at once: cond returns one for
// what must never be seen on the way (a second Event, a failed backup),
// and NotFound for what is not there yet.
func (k Kit) Until(t testing.TB, timeout time.Duration, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), k.Poll, timeout, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return ok, err
	})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// WaitCluster waits for the PostgresCluster's phase at its generation.
func (k Kit) WaitCluster(t testing.TB, ns, name string, phase pgv1.Phase, timeout time.Duration) *pgv1.PostgresCluster {
	t.Helper()
	var got *pgv1.PostgresCluster
	k.Eventually(t, timeout, "PostgresCluster "+name+" "+string(phase), func(ctx context.Context) (bool, string, error) {
		c, err := k.PG.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		got = c
		return c.Status.Phase == phase && c.Status.ObservedGeneration == c.Generation,
			fmt.Sprintf("generation %d/%d; %s", c.Status.ObservedGeneration, c.Generation, Conditions(c.Status.Phase, c.Status.Conditions)), nil
	})
	return got
}

// WaitClusterReason waits until the PostgresCluster's condition typ has
// reason, in a status written for its generation, and returns the
// cluster (the condition is then there).
func (k Kit) WaitClusterReason(t testing.TB, ns, name, typ, reason string, timeout time.Duration) *pgv1.PostgresCluster {
	t.Helper()
	var got *pgv1.PostgresCluster
	k.Eventually(t, timeout, "PostgresCluster "+name+" "+typ+" "+reason, func(ctx context.Context) (bool, string, error) {
		c, err := k.PG.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		got = c
		cond := meta.FindStatusCondition(c.Status.Conditions, typ)
		return cond != nil && cond.Reason == reason && c.Status.ObservedGeneration == c.Generation,
			fmt.Sprintf("generation %d/%d; %s", c.Status.ObservedGeneration, c.Generation, Conditions(c.Status.Phase, c.Status.Conditions)), nil
	})
	return got
}

// WaitDatabase waits for the PostgresDatabase's phase at its generation.
func (k Kit) WaitDatabase(t testing.TB, ns, name string, phase pgv1.Phase, timeout time.Duration) *pgv1.PostgresDatabase {
	t.Helper()
	var got *pgv1.PostgresDatabase
	k.Eventually(t, timeout, "PostgresDatabase "+name+" "+string(phase), func(ctx context.Context) (bool, string, error) {
		d, err := k.PG.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		got = d
		return d.Status.Phase == phase && d.Status.ObservedGeneration == d.Generation,
			fmt.Sprintf("generation %d/%d; %s", d.Status.ObservedGeneration, d.Generation, Conditions(d.Status.Phase, d.Status.Conditions)), nil
	})
	return got
}

// Gone waits until get reports not found (a minute on the stand-in).
func (k Kit) Gone(t testing.TB, what string, get func(ctx context.Context) error) {
	t.Helper()
	k.Eventually(t, k.scaled(time.Minute), what+" deleted", func(ctx context.Context) (bool, string, error) {
		err := get(ctx)
		if apierrors.IsNotFound(err) {
			return true, "", nil
		}
		if err == nil {
			return false, "still there", nil
		}
		return false, "", err
	})
}

// DeleteDatabase deletes a PostgresDatabase and waits until it is gone.
func (k Kit) DeleteDatabase(t testing.TB, ns, name string) {
	t.Helper()
	if err := k.PG.PostgresV1alpha1().PostgresDatabases(ns).Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	k.Gone(t, "PostgresDatabase "+name, func(ctx context.Context) error {
		_, err := k.PG.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, name, metav1.GetOptions{})
		return err
	})
}

// DeleteCluster deletes a PostgresCluster and waits until it is gone.
func (k Kit) DeleteCluster(t testing.TB, ns, name string) {
	t.Helper()
	if err := k.PG.PostgresV1alpha1().PostgresClusters(ns).Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	k.Gone(t, "PostgresCluster "+name, func(ctx context.Context) error {
		_, err := k.PG.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, name, metav1.GetOptions{})
		return err
	})
}

// SettleGC waits until the garbage collector has deleted what the
// namespace's deleted owners owned (a minute on the stand-in).
func (k Kit) SettleGC(t testing.TB, ns string) {
	t.Helper()
	if err := envtest.SettleGC(t.Context(), k.Kube, ns, k.scaled(time.Minute)); err != nil {
		t.Fatal(err)
	}
}

// RequestBackup asks for an on-demand backup of cluster with request id
// (the backup-request annotation, merged in) and returns the name of the
// CNPG Backup that answers it.
func (k Kit) RequestBackup(t testing.TB, ns, cluster, id string) string {
	t.Helper()
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, pgv1.BackupRequestAnnotation, id)
	if _, err := k.PG.PostgresV1alpha1().PostgresClusters(ns).Patch(t.Context(), cluster, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("request backup %s: %v", id, err)
	}
	var name string
	k.Eventually(t, k.scaled(time.Minute), "backup request "+id+" answered", func(ctx context.Context) (bool, string, error) {
		c, err := k.PG.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, cluster, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		bs := c.Status.BackupStatus
		if bs == nil || bs.LastRequest == nil || bs.LastRequest.ID != id {
			return false, "no answer yet", nil
		}
		if bs.LastRequest.Backup == "" {
			t.Fatalf("backup request %s refused: %s", id, bs.LastRequest.Message)
		}
		name = bs.LastRequest.Backup
		return true, "", nil
	})
	return name
}

// WaitBackupCompleted waits for the CNPG Backup's phase completed; a
// failed Backup fails the test at once, with CNPG's error.
func (k Kit) WaitBackupCompleted(t testing.TB, ns, name string, timeout time.Duration) *cnpgv1.Backup {
	t.Helper()
	var b *cnpgv1.Backup
	k.Eventually(t, timeout, "Backup "+name+" completed", func(ctx context.Context) (bool, string, error) {
		var err error
		if b, err = k.PG.CNPGV1().Backups(ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, "", err
		}
		if b.Status.Phase == cnpgv1.BackupPhaseFailed {
			t.Fatalf("Backup %s failed: %s", name, b.Status.Error)
		}
		return b.Status.Phase == cnpgv1.BackupPhaseCompleted, fmt.Sprintf("phase %q", b.Status.Phase), nil
	})
	return b
}

// ExpectReason checks that condition typ has reason and a message that
// contains msgPart.
func ExpectReason(t testing.TB, conds []metav1.Condition, typ, reason, msgPart string) {
	t.Helper()
	c := meta.FindStatusCondition(conds, typ)
	if c == nil {
		t.Errorf("no condition %s in %s", typ, Conditions("", conds))
		return
	}
	if c.Reason != reason || !strings.Contains(c.Message, msgPart) {
		t.Errorf("%s = %s %q, want %s containing %q", typ, c.Reason, c.Message, reason, msgPart)
	}
}

// Conditions is a phase and its conditions on one line, for a message.
func Conditions(phase pgv1.Phase, cs []metav1.Condition) string {
	parts := []string{"phase " + string(phase)}
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(parts, "; ")
}

// RotatedFor counts the roles of db whose last rotation answered request,
// and all its roles.
func RotatedFor(db *pgv1.PostgresDatabase, request string) (rotated, roles int) {
	for _, e := range db.Status.Databases {
		for _, r := range e.Roles {
			roles++
			if r.LastRotation != nil && r.LastRotation.Request == request {
				rotated++
			}
		}
	}
	return rotated, roles
}
