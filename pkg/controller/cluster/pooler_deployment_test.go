package cluster

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func poolerOf(name string, instances int32) *cnpgv1.Pooler {
	return &cnpgv1.Pooler{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: uidOf(name)},
		Status: cnpgv1.PoolerStatus{Instances: instances, Phase: "active"}}
}

func uidOf(name string) k8stypes.UID { return k8stypes.UID("uid-" + name) }

// pgBouncerDeployment is the Deployment CNPG runs pooler's PgBouncer in.
func pgBouncerDeployment(pooler *cnpgv1.Pooler, available int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: pooler.Name, Namespace: "ns", Generation: 2,
			Labels: map[string]string{cnpgClusterLabel: "shop", cnpgPodRoleLabel: "pooler"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "postgresql.cnpg.io/v1", Kind: "Pooler", Name: pooler.Name,
				UID: pooler.UID, Controller: ptr.To(true)}}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: available},
	}
}

// CNPG counts a Pooler's instances when their Pods exist; the pooler is
// ready only when PgBouncer's Deployment has them available, at its
// current generation, and is the Pooler's own.
func TestPoolerWaitsForPgBouncerToBeAvailable(t *testing.T) {
	t.Parallel()
	p := testPass()
	p.want = &desired{PoolerEnabled: true, PoolerInstances: 1}
	rw, ro := poolerOf("shop-pooler-rw", 1), poolerOf("shop-pooler-ro", 1)
	bouncers := map[string]*appsv1.Deployment{}
	p.obs = &observation{}
	poolerPart.set(p.obs, poolersSeen{poolers: map[string]*cnpgv1.Pooler{rw.Name: rw, ro.Name: ro}, pgBouncers: bouncers})
	observe := func() health { return poolerComponent{}.Observe(t.Context(), p, nil) }

	if h := observe(); h.Phase != pgv1.PhaseProvisioning || !strings.Contains(h.Message, "create PgBouncer's Deployment shop-pooler-rw") {
		t.Fatalf("no Deployment yet: %+v", h)
	}
	bouncers[rw.Name] = pgBouncerDeployment(rw, 0)
	bouncers[ro.Name] = pgBouncerDeployment(ro, 1)
	if h := observe(); h.Phase != pgv1.PhaseProvisioning || !strings.Contains(h.Message, "PgBouncer of shop-pooler-rw starting (0 of 1 available)") {
		t.Fatalf("Pods created, none available: %+v", h)
	}
	bouncers[rw.Name] = pgBouncerDeployment(rw, 1)
	if h := observe(); h.Phase != pgv1.PhaseReady {
		t.Fatalf("both available: %+v", h)
	}

	stale := pgBouncerDeployment(rw, 1)
	stale.Generation = 3 // a new spec the Deployment controller has not seen
	bouncers[rw.Name] = stale
	if h := observe(); h.Phase != pgv1.PhaseProvisioning || !strings.Contains(h.Message, "rolling out") {
		t.Fatalf("new generation not rolled out: %+v", h)
	}
	foreign := pgBouncerDeployment(rw, 1)
	foreign.OwnerReferences[0].UID = "someone-else"
	bouncers[rw.Name] = foreign
	if h := observe(); h.Phase != pgv1.PhaseProvisioning {
		t.Fatalf("a Deployment of another Pooler counted: %+v", h)
	}
}

func TestPoolerDeploymentRouting(t *testing.T) {
	t.Parallel()
	d := pgBouncerDeployment(poolerOf("shop-pooler-rw", 1), 0)
	if keys := clusterOfCNPGObject(d); len(keys) != 1 || keys[0].Namespace != "ns" || keys[0].Name != "shop" {
		t.Fatalf("keys = %v", keys)
	}
	if keys := clusterOfCNPGObject(&appsv1.Deployment{}); len(keys) != 0 {
		t.Fatalf("a Deployment without CNPG's cluster label routed: %v", keys)
	}
	moved := d.DeepCopy()
	moved.Status.AvailableReplicas = 1
	if !availabilityChanged(d, moved) {
		t.Error("availability change not routed")
	}
	other := d.DeepCopy()
	other.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing}}
	if availabilityChanged(d, other) {
		t.Error("a status write that changes nothing setpoint reads is routed")
	}
}
