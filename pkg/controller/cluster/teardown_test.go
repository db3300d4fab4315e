package cluster

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	monitoringv1 "github.com/setpoint-dev/setpoint/pkg/apis/monitoring/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	pgfake "github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// children are a cluster's children as the caches hold them: all owned by
// pc but the read-only Pooler, which a namesake's leftover holds.
func children(pc *pgv1.PostgresCluster, withPooler bool) (*observation, []runtime.Object) {
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: pc.Namespace, Name: name, UID: types.UID("uid-" + name),
			OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(pc, gvk)}}
	}
	o := &observation{}
	o.secret = &corev1.Secret{ObjectMeta: meta("shop-superuser")}
	o.cnpg = &cnpgv1.Cluster{ObjectMeta: meta("shop")}
	o.objectStore = &barmanv1.ObjectStore{ObjectMeta: meta("shop-backup")}
	podMonitor := &monitoringv1.PodMonitor{ObjectMeta: meta("shop-metrics")}
	podMonitorPart.set(o, podMonitorSeen{cur: podMonitor})
	backup := &cnpgv1.ScheduledBackup{ObjectMeta: meta("shop-backup")}
	backupPart.set(o, map[string]*cnpgv1.ScheduledBackup{backup.Name: backup})
	foreign := &cnpgv1.Pooler{ObjectMeta: metav1.ObjectMeta{Namespace: pc.Namespace, Name: "shop-pooler-ro", UID: "uid-other",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "PostgresCluster", Name: "shop", UID: "uid-earlier", Controller: new(true)}}}}
	poolers := map[string]*cnpgv1.Pooler{foreign.Name: foreign}
	objs := []runtime.Object{o.cnpg, o.objectStore, podMonitor, backup, foreign}
	if withPooler {
		rw := &cnpgv1.Pooler{ObjectMeta: meta("shop-pooler-rw")}
		poolers[rw.Name] = rw
		objs = append(objs, rw)
	}
	poolerPart.set(o, poolersSeen{poolers: poolers})
	return o, objs
}

// releasedMeta is the metadata of the child name (as children makes it)
// once a Retain deletion has released it to a later namesake: no owner,
// marked retained for shop.
func releasedMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name),
		Labels: map[string]string{"postgres.setpoint.dev/retained": "true"},
		Annotations: map[string]string{"postgres.setpoint.dev/retained-for": "PostgresCluster/shop",
			"postgres.setpoint.dev/retained-cluster": "shop"}}
}

func clusterWithPolicy(policy pgv1.DeletionPolicy) *pgv1.PostgresCluster {
	return &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop", UID: "uid-shop"},
		Spec: pgv1.PostgresClusterSpec{ClusterDeletionPolicy: policy}}
}

// teardownWrites lists the writes of a teardown, as "verb resource name".
func teardownWrites(actions []k8stesting.Action) []string {
	var out []string
	for _, a := range actions {
		switch a := a.(type) {
		case k8stesting.DeleteAction:
			out = append(out, fmt.Sprintf("delete %s %s", a.GetResource().Resource, a.GetName()))
		case k8stesting.PatchAction:
			out = append(out, fmt.Sprintf("patch %s %s", a.GetResource().Resource, a.GetName()))
		}
	}
	return out
}

func TestDeletePolicyDeletesOwnedChildrenLastBuiltFirst(t *testing.T) {
	t.Parallel()
	pc := clusterWithPolicy(pgv1.DeletionPolicyDelete)
	o, objs := children(pc, true)
	pg, kube := pgfake.NewSimpleClientset(objs...), kubefake(o.secret)
	td := &teardown{pc: pc, obs: o, deps: &deps{pg: pg, kube: kube}}
	if err := td.run(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []string{"delete scheduledbackups shop-backup", "delete poolers shop-pooler-rw", "delete clusters shop", "delete objectstores shop-backup"}
	if got := teardownWrites(pg.Actions()); !slices.Equal(got, want) {
		t.Errorf("writes %v, want %v (the foreign pooler untouched, nothing released)", got, want)
	}
	if td.remaining != 4 || len(td.kept) != 0 || len(teardownWrites(kube.Actions())) != 0 {
		t.Errorf("remaining %d, kept %v, Secret writes %v; want 4 still cached, nothing kept", td.remaining, td.kept, teardownWrites(kube.Actions()))
	}
}

func TestRetainDeletesThePoolersThenReleasesWhatItKeeps(t *testing.T) {
	t.Parallel()
	pc := clusterWithPolicy(pgv1.DeletionPolicyRetain)
	o, objs := children(pc, true)
	pg, kube := pgfake.NewSimpleClientset(objs...), kubefake(o.secret)
	td := &teardown{pc: pc, obs: o, deps: &deps{pg: pg, kube: kube}}
	if err := td.run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := teardownWrites(pg.Actions()); !slices.Equal(got, []string{"delete poolers shop-pooler-rw"}) || td.remaining != 1 || len(td.kept) != 0 {
		t.Fatalf("first pass: writes %v, remaining %d, kept %v; want only the pooler deleted, nothing released while it is cached", got, td.remaining, td.kept)
	}

	o, objs = children(pc, false)
	pg, kube = pgfake.NewSimpleClientset(objs...), kubefake(o.secret)
	td = &teardown{pc: pc, obs: o, deps: &deps{pg: pg, kube: kube}}
	if err := td.run(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantKept := "Secret shop-superuser, ObjectStore shop-backup, CNPG Cluster shop, ScheduledBackup shop-backup, PodMonitor shop-metrics"
	if got := strings.Join(td.kept, ", "); got != wantKept {
		t.Errorf("kept %q, want %q", got, wantKept)
	}
	// Released whole: our reference gone, marked retained for shop, and
	// nothing else changed.
	cl, err := pg.CNPGV1().Clusters("ns").Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := ct.Diff(&cnpgv1.Cluster{ObjectMeta: releasedMeta("shop")}, cl); d != "" {
		t.Errorf("released CNPG Cluster as stored: %s", d)
	}
	s, err := kube.CoreV1().Secrets("ns").Get(t.Context(), "shop-superuser", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := ct.Diff(&corev1.Secret{ObjectMeta: releasedMeta("shop-superuser")}, s); d != "" {
		t.Errorf("released Secret as stored: %s", d)
	}
	for _, w := range teardownWrites(pg.Actions()) {
		if strings.Contains(w, "shop-pooler-ro") {
			t.Errorf("wrote %s, a Pooler this cluster does not control", w)
		}
	}
}
