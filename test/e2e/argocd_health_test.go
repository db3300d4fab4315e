package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// argoHealth runs the Argo CD health script
// (manifests/argocd/resource_customizations/postgres.setpoint.dev) on
// objects through hack/tools/cmd/argohealth: gopher-lua with Argo CD's
// libraries, in the tools module (it never enters the operator's build).
type argoHealth struct {
	bin, script string
	// record, when set (SETPOINT_ARGOCD_RECORD), is where each judged
	// object is written, as the script's testdata.
	record string
}

func newArgoHealth(t *testing.T) *argoHealth {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	h := &argoHealth{bin: filepath.Join(t.TempDir(), "argohealth"),
		script: filepath.Join(root, "manifests", "argocd", "resource_customizations", "postgres.setpoint.dev", "health.lua"),
		record: os.Getenv("SETPOINT_ARGOCD_RECORD")}
	cmd := exec.CommandContext(t.Context(), "go", "build", "-o", h.bin, "./cmd/argohealth")
	cmd.Dir = filepath.Join(root, "hack", "tools")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build argohealth: %v\n%s", err, out)
	}
	return h
}

// expect judges obj as it is now and fails unless the script says status
// with a message containing want.
func (h *argoHealth) expect(t *testing.T, name string, obj runtime.Object, status, want string) {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	delete(m["metadata"].(map[string]any), "managedFields")
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), h.bin, "-script", h.script)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: argohealth: %v", name, err)
	}
	var got struct{ Status, Message string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: %v: %s", name, err, out)
	}
	if got.Status != status || !strings.Contains(got.Message, want) {
		t.Errorf("%s: Argo CD health %s %q, want %s with %q", name, got.Status, got.Message, status, want)
	}
	if h.record != "" {
		y, err := yaml.JSONToYAML(data)
		if err == nil {
			err = os.WriteFile(filepath.Join(h.record, name+".yaml"), y, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func getCluster(t *testing.T, ns, name string) *pgv1.PostgresCluster {
	t.Helper()
	c, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.APIVersion, c.Kind = pgv1.SchemeGroupVersion.String(), "PostgresCluster"
	return c
}

func getDatabase(t *testing.T, ns, name string) *pgv1.PostgresDatabase {
	t.Helper()
	d, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.APIVersion, d.Kind = pgv1.SchemeGroupVersion.String(), "PostgresDatabase"
	return d
}

// waitDatabaseReason waits for the database's Ready condition to have
// reason, at its generation.
func waitDatabaseReason(t *testing.T, ns, name, reason string) {
	t.Helper()
	kit.Eventually(t, time.Minute, "PostgresDatabase "+name+" Ready "+reason, func(ctx context.Context) (bool, string, error) {
		d, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		c := meta.FindStatusCondition(d.Status.Conditions, pgv1.ConditionReady)
		return c != nil && c.Reason == reason && d.Status.ObservedGeneration == d.Generation, fmt.Sprint(d.Status.Conditions), nil
	})
}

// Argo CD's health of setpoint's kinds, judged by the shipped Lua script
// on the status setpoint writes, in each state a user meets: Ready is
// Healthy; waiting is Progressing, and so is a status older than the
// spec; Failed, or waiting on a cluster that failed, is Degraded; a major
// upgrade waiting for its user's acknowledgment is Suspended. With
// SETPOINT_ARGOCD_RECORD=<dir> the objects are written there (the
// script's testdata was recorded so).
func TestArgoCDHealth(t *testing.T) {
	ns := kit.Namespace(t)
	h := newArgoHealth(t)
	op := readyCluster(t, ns) // shop: PostgreSQL 15, no object store
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	h.expect(t, "cluster_ready", getCluster(t, ns, "shop"), "Healthy", pgv1.ReasonAllComponentsReady)
	h.expect(t, "database_ready", getDatabase(t, ns, "app"), "Healthy", pgv1.ReasonAllReady)

	kit.CreateDatabaseOn(t, ns, "early", "later", "", "later")
	waitDatabaseReason(t, ns, "early", pgv1.ReasonClusterNotFound)
	h.expect(t, "database_cluster_not_found", getDatabase(t, ns, "early"), "Progressing", pgv1.ReasonClusterNotFound)

	newCluster(t, ns, "lost", "e2e-missing-"+ns, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "lost", pgv1.PhaseFailed, time.Minute)
	h.expect(t, "cluster_failed", getCluster(t, ns, "lost"), "Degraded", pgv1.ReasonClassNotFound)
	kit.CreateDatabaseOn(t, ns, "stranded", "lost", "", "stranded")
	waitDatabaseReason(t, ns, "stranded", pgv1.ReasonClusterFailed)
	h.expect(t, "database_cluster_failed", getDatabase(t, ns, "stranded"), "Degraded", pgv1.ReasonClusterFailed)

	kit.CreateDatabase(t, ns, "second", "shop", pgv1.DatabaseSpec{Name: "orders"}) // app's roles
	kit.WaitDatabase(t, ns, "second", pgv1.PhaseFailed, time.Minute)
	h.expect(t, "database_failed", getDatabase(t, ns, "second"), "Degraded", "RoleConflict")

	kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) { c.Spec.PostgresVersion = ptr.To[int32](17) })
	kit.WaitClusterReason(t, ns, "shop", pgv1.ConditionMajorUpgrade, pgv1.ReasonUpgradeNeedsBackup, time.Minute)
	h.expect(t, "cluster_upgrade_needs_backup", getCluster(t, ns, "shop"), "Suspended", pgv1.ReasonUpgradeNeedsBackup)
	h.expect(t, "database_ready_during_upgrade", getDatabase(t, ns, "app"), "Healthy", pgv1.ReasonAllReady)

	// With the operator stopped, a spec change stays unobserved: the
	// status describes the previous generation. A Failed cluster whose
	// spec just changed is Progressing until setpoint judges it again.
	op.signal(syscall.SIGKILL)
	<-op.done
	kit.UpdateCluster(t, ns, "lost", func(c *pgv1.PostgresCluster) { c.Spec.Instances = ptr.To[int32](2) })
	c := getCluster(t, ns, "lost")
	if c.Status.Phase != pgv1.PhaseFailed || c.Status.ObservedGeneration >= c.Generation {
		t.Fatalf("phase %s, observedGeneration %d of %d: want Failed, unobserved", c.Status.Phase, c.Status.ObservedGeneration, c.Generation)
	}
	h.expect(t, "cluster_generation_not_observed", c, "Progressing", fmt.Sprintf("observe generation %d", c.Generation))
	newCluster(t, ns, "unseen", "e2e-"+ns, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	h.expect(t, "cluster_without_status", getCluster(t, ns, "unseen"), "Progressing", "Waiting for setpoint to report")
	d := getDatabase(t, ns, "app")
	d.Spec.Databases = append(d.Spec.Databases, pgv1.DatabaseSpec{Name: "invoices"})
	if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	d = getDatabase(t, ns, "app")
	if d.Status.Phase != pgv1.PhaseReady || d.Status.ObservedGeneration >= d.Generation {
		t.Fatalf("phase %s, observedGeneration %d of %d: want Ready, unobserved", d.Status.Phase, d.Status.ObservedGeneration, d.Generation)
	}
	h.expect(t, "database_generation_not_observed", d, "Progressing", fmt.Sprintf("observe generation %d", d.Generation))
}
